"""Many agents on one `tack serve --http --state postgres://…`, then on three such replicas behind
HAProxy: per-tool latency of each, failed calls, and how many calls each replica served.

usage: replicas.py TACK ROOT [--agents 32] [--calls 40] [--think-ms 1000] [--replicas 3]
                   [--tools LIST] [--seed 1] [--settle-s 5] [--out FILE]

A throwaway PostgreSQL cluster (initdb in a temporary folder, run as the `postgres` user when
this is root) keeps the agents' state; each phase has a database of its own. The corpus is copied
to a temporary folder first, which every server serves (nothing is written into ROOT).

Every agent is a 2026-07-28 client without a session: its first call carries no `agent` and its
result names a handle; then it makes `--calls` calls (load.py's workload: search, read_file,
repo_map, definition in turn, same seeds in both phases), each passing agent=HANDLE, waiting
0.5x to 1.5x --think-ms after each result and starting at a random moment within one think time
(as load.py's agents do). Agents are threads of this process, each with one kept-alive
connection.

Phase A: one server. Phase B: --replicas servers, each with its own index folder, the same
corpus copy, database and token, behind HAProxy (round robin, sticky on Mcp-Session-Id, which
these requests do not carry, health checks every 200 ms, `X-Tack-Replica` names the replica that
answered). On one machine the replicas share its cores: this shows that no call fails and that
any replica serves any agent, not that three replicas are faster.

A call failed when its HTTP status is not 200, the answer holds a JSON-RPC error or no result;
results with isError (a name not found, a line past the end) are counted apart. Each server's
stderr is kept in the temporary folder; the tail of any that shows ERROR or a panic is printed.
"""

import argparse
import http.client
import json
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time

from load import TOOLS, percentiles, scan, workload

PG_BIN = "/usr/lib/postgresql/15/bin"
META = {"io.modelcontextprotocol/clientInfo": {"name": "bench", "version": "0"},
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientCapabilities": {}}


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stop(process, grace=10):
    """SIGINT (PostgreSQL's fast shutdown; tack and HAProxy stop on it too), then SIGKILL."""
    if process is None or process.poll() is not None:
        return
    try:
        process.send_signal(signal.SIGINT)
        process.wait(grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


class Client:
    """A 2026-07-28 client: raw JSON-RPC POSTs without a session, on one kept-alive connection."""

    def __init__(self, host, token):
        self.host = host
        self.token = token
        self.conn = None
        self.agent = None

    def close(self):
        if self.conn:
            self.conn.close()
            self.conn = None

    def call(self, tool, args):
        """(ms, failed, text, replica): `failed` is None, "protocol" (no result: HTTP status, a
        JSON-RPC error, an unreadable answer) or "tool" (a result with isError)."""
        if tool == "definition":
            name, arguments = "call_tool", {"name": tool, "arguments": args}
        else:
            name, arguments = tool, dict(args)
        if self.agent:
            arguments["agent"] = self.agent
        body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                           "params": {"name": name, "arguments": arguments, "_meta": META}})
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
                   "Authorization": f"Bearer {self.token}", "MCP-Protocol-Version": "2026-07-28",
                   "Mcp-Method": "tools/call", "Mcp-Name": name}
        started = time.perf_counter()
        status, text, replica = 0, "", None
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, timeout=120)
            try:
                self.conn.request("POST", "/mcp", body, headers)
                response = self.conn.getresponse()
                text = response.read().decode()
                status, replica = response.status, response.getheader("x-tack-replica")
                if response.will_close:
                    self.close()
                break
            except (http.client.HTTPException, ConnectionError) as e:
                # A kept-alive connection the server or HAProxy closed meanwhile: once more on a
                # new one.
                self.close()
                if attempt:
                    text = f"{type(e).__name__}: {e}"
        ms = (time.perf_counter() - started) * 1000
        message = None
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                try:
                    message = json.loads(line[5:])
                    break
                except ValueError:
                    pass
        if message is None and text.startswith("{"):
            try:
                message = json.loads(text)
            except ValueError:
                pass
        result = (message or {}).get("result")
        if status != 200 or not message or "error" in message or not result:
            why = json.dumps(message["error"]) if message and "error" in message else text[:300]
            return ms, "protocol", f"HTTP {status}: {why}", replica
        out = "".join(block.get("text", "") for block in result.get("content", []))
        return ms, ("tool" if result.get("isError") else None), out, replica


def handle_in(text):
    """The handle a new agent's first result names (`agent a…: pass agent=…`)."""
    for line in reversed(text.splitlines()):
        if line.startswith("agent a") and ":" in line:
            return line[len("agent "):].split(":", 1)[0]
    return None


class Postgres:
    """A cluster of its own in a temporary folder, trusting loopback, on a free port."""

    def __init__(self):
        self.root = os.geteuid() == 0
        self.dir = tempfile.mkdtemp(prefix="tack-replicas-pg-")
        self.process = None
        if self.root:
            shutil.chown(self.dir, "postgres", "postgres")
        data = os.path.join(self.dir, "data")
        out = subprocess.run(self.as_postgres([f"{PG_BIN}/initdb", "-D", data, "-U", "tack", "--auth=trust",
                                               "--no-sync", "--no-locale", "-E", "UTF8"]),
                             capture_output=True, text=True)
        if out.returncode:
            raise SystemExit(f"initdb failed: {out.stderr}")
        self.port = free_port()
        self.log = open(os.path.join(self.dir, "postgres.log"), "w")
        if self.root:
            shutil.chown(self.log.name, "postgres", "postgres")
        self.process = subprocess.Popen(
            self.as_postgres([f"{PG_BIN}/postgres", "-D", data, "-p", str(self.port), "-k", self.dir,
                              "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off",
                              "-c", "synchronous_commit=off", "-c", "full_page_writes=off",
                              "-c", "max_connections=200"]),
            stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log)
        deadline = time.time() + 60
        while subprocess.run([f"{PG_BIN}/pg_isready", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tack", "-d", "postgres", "-q"]
                             ).returncode:
            if time.time() > deadline or self.process.poll() is not None:
                raise SystemExit("PostgreSQL did not accept connections in 60 s")
            time.sleep(0.1)

    def as_postgres(self, argv):
        if self.root:
            return ["setpriv", "--reuid", "postgres", "--regid", "postgres", "--clear-groups", "--"] + argv
        return argv

    def database(self, name):
        """A new database `name`, and the URL a server connects to it with."""
        subprocess.run([f"{PG_BIN}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "tack", name],
                       check=True)
        return f"postgres://tack@127.0.0.1:{self.port}/{name}"

    def close(self):
        stop(self.process)
        self.log.close()
        with open(self.log.name, errors="replace") as f:
            bad = [line for line in f if any(k in line for k in ("ERROR:", "FATAL:", "PANIC:"))]
        if bad:
            print(f"\nPostgreSQL's log shows {len(bad)} ERROR/FATAL/PANIC lines; the last ones:\n"
                  + "".join(bad[-10:]))
        shutil.rmtree(self.dir, ignore_errors=True)


class Servers:
    """The processes a phase starts, stopped on close; each one's stderr in a file of `work`."""

    def __init__(self, work):
        self.work = work
        self.processes = []  # (name, Popen, stderr path)

    def tack(self, name, tack, corpus, state, token_file):
        port = free_port()
        log = os.path.join(self.work, f"{name}.stderr")
        with open(log, "w") as err:
            process = subprocess.Popen(
                [tack, "serve", "--http", f"127.0.0.1:{port}", "--state", state, "--token-file", token_file,
                 "--root", corpus, "--index-dir", os.path.join(self.work, f"index-{name}")],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=err,
                env={**os.environ, "TACK_LOG": "warn"})
        self.processes.append((name, process, log))
        deadline = time.time() + 60
        while True:
            with open(log) as f:
                if "tack: serving MCP at " in f.read():
                    return f"127.0.0.1:{port}"
            if process.poll() is not None or time.time() > deadline:
                raise SystemExit(f"{name} did not serve (status {process.poll()}):\n{tail(log)}")
            time.sleep(0.05)

    def haproxy(self, backends):
        port = free_port()
        config = (
            "global\n  maxconn 256\ndefaults\n  mode http\n  timeout connect 2s\n  timeout client 300s\n"
            "  timeout server 300s\n  option redispatch\n  retries 3\nfrontend mcp\n"
            f"  bind 127.0.0.1:{port}\n  default_backend tack\nbackend tack\n  balance roundrobin\n"
            "  stick-table type string len 64 size 10k expire 30m\n  stick on req.hdr(mcp-session-id)\n"
            "  stick store-response res.hdr(mcp-session-id)\n"
            "  http-response set-header X-Tack-Replica %[srv_name]\n")
        for name, host in backends:
            config += f"  server {name} {host} check inter 200ms fall 1 rise 2\n"
        path = os.path.join(self.work, "haproxy.cfg")
        with open(path, "w") as f:
            f.write(config)
        log = os.path.join(self.work, "haproxy.stderr")
        with open(log, "w") as err:
            process = subprocess.Popen(["haproxy", "-db", "-f", path], stdin=subprocess.DEVNULL, stdout=err,
                                       stderr=err)
        self.processes.append(("haproxy", process, log))
        deadline = time.time() + 10
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                return f"127.0.0.1:{port}"
            except OSError:
                if process.poll() is not None or time.time() > deadline:
                    raise SystemExit(f"HAProxy did not listen:\n{tail(log)}")
                time.sleep(0.05)

    def close(self):
        for _, process, _ in self.processes:
            stop(process)
        self.processes = []


def tail(path, lines=20):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-lines:])
    except OSError:
        return ""


def warm(host, token, files, names, tools):
    """A first search (the index is built by then), and load.py's eight warm-up calls, as one
    agent straight to the server; the first search's seconds."""
    client = Client(host, token)
    deadline = time.time() + 600
    while True:
        ms, failed, text, _ = client.call("search", {"query": "warm up"})
        if not failed:
            break
        if time.time() > deadline:
            raise SystemExit(f"{host}: no search answered in 600 s: {text}")
        time.sleep(0.5)
    client.agent = handle_in(text)
    for tool, targs in workload(files, names, random.Random(0), 8, tools):
        client.call(tool, targs)
    client.close()
    return ms / 1000


def run_agents(host, token, args, files, names, tools):
    """Every agent's calls at once; per agent: [(tool, ms, failed, why, replica)], the first
    (handle) call's row first, as tool "first"."""
    results = [None] * args.agents

    def agent(i):
        seed = args.seed + 1 + i
        think = random.Random(-seed)
        client = Client(host, token)
        rows = []
        time.sleep(args.think_ms / 1000 * think.uniform(0, 1))
        path = files[random.Random(seed).randrange(len(files))][0]
        ms, failed, text, replica = client.call("read_file", {"path": path, "start": 1})
        client.agent = handle_in(text) if not failed else None
        if not failed and not client.agent:
            failed, text = "protocol", f"no agent handle in the first result: {text[-300:]}"
        rows.append(("first", ms, failed, f"first read_file {path}: {text[:300]}" if failed else None, replica))
        for tool, targs in workload(files, names, random.Random(seed), args.calls, tools):
            if args.think_ms:
                time.sleep(args.think_ms / 1000 * think.uniform(0.5, 1.5))
            ms, failed, text, replica = client.call(tool, targs)
            rows.append((tool, ms, failed, f"{tool} {json.dumps(targs)}: {text[:300]}" if failed else None, replica))
        client.close()
        results[i] = rows

    threads = [threading.Thread(target=agent, args=(i,)) for i in range(args.agents)]
    started = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results, time.perf_counter() - started


def summary(results, elapsed, tools):
    latencies = {tool: [] for tool in ["first"] + tools}
    out = {"protocol": 0, "tool": 0, "failures": [], "tool_errors": [], "replicas": {}, "agents_on": {}}
    for rows in results:
        if rows is None:
            out["protocol"] += 1
            out["failures"].append("an agent's thread died")
            continue
        served = set()
        for tool, ms, failed, why, replica in rows:
            latencies[tool].append(ms)
            if failed:
                out[failed] += 1
                out["failures" if failed == "protocol" else "tool_errors"].append(why)
            if replica:
                out["replicas"][replica] = out["replicas"].get(replica, 0) + 1
                served.add(replica)
        out["agents_on"][len(served)] = out["agents_on"].get(len(served), 0) + 1
    out["latency"] = {tool: percentiles(v) for tool, v in latencies.items()}
    out["calls"] = sum(len(v) for v in latencies.values())
    out["elapsed_s"] = elapsed
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tack")
    parser.add_argument("root")
    parser.add_argument("--agents", type=int, default=32)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--think-ms", type=int, default=1000)
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--tools", default=",".join(TOOLS), help="the call mix, in turn (comma-separated)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--settle-s", type=float, default=5, help="rest after warming up, before the load")
    parser.add_argument("--out", help="write the figures as JSON to this file")
    args = parser.parse_args()
    tools = args.tools.split(",")
    assert set(tools) <= set(TOOLS), f"--tools takes {', '.join(TOOLS)}"
    tack = os.path.abspath(args.tack)

    work = tempfile.mkdtemp(prefix="tack-replicas-")
    db = None
    servers = Servers(work)
    phases = {}
    try:
        corpus = os.path.join(work, "corpus")
        shutil.copytree(args.root, corpus, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "site-packages"),
                        symlinks=True)
        files, names = scan(corpus, random.Random(args.seed))
        token = secrets.token_hex(24)
        token_file = os.path.join(work, "token")
        with open(os.open(token_file, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600), "w") as f:
            f.write(token)
        db = Postgres()
        print(f"corpus: {args.root} ({len(files)} Python files, copied); PostgreSQL on port {db.port}")

        # Phase A: one server.
        host = servers.tack("r0", tack, corpus, db.database("baseline"), token_file)
        first = warm(host, token, files, names, tools)
        print(f"one server: first search (index built) {first:.1f} s")
        time.sleep(args.settle_s)
        results, elapsed = run_agents(host, token, args, files, names, tools)
        phases["one"] = summary(results, elapsed, tools)
        servers.close()

        # Phase B: replicas behind HAProxy, one state database.
        state = db.database("replicas")
        backends = [(f"r{i}", servers.tack(f"r{i}", tack, corpus, state, token_file))
                    for i in range(1, args.replicas + 1)]
        firsts = [warm(h, token, files, names, tools) for _, h in backends]
        print(f"{args.replicas} replicas: first search (index built) "
              + ", ".join(f"{n} {s:.1f} s" for (n, _), s in zip(backends, firsts)))
        proxy = servers.haproxy(backends)
        # HAProxy takes every replica in turn before the load starts.
        seen, probe = set(), Client(proxy, token)
        deadline = time.time() + 30
        while len(seen) < len(backends) and time.time() < deadline:
            _, failed, _, replica = probe.call("read_file", {"path": files[0][0], "start": 1})
            if replica and not failed:
                seen.add(replica)
            time.sleep(0.1)
        probe.close()
        if len(seen) < len(backends):
            raise SystemExit(f"HAProxy reached only {sorted(seen)}:\n{tail(os.path.join(work, 'haproxy.stderr'))}")
        time.sleep(args.settle_s)
        results, elapsed = run_agents(proxy, token, args, files, names, tools)
        phases["replicas"] = summary(results, elapsed, tools)

        a, b = phases["one"], phases["replicas"]
        print(f"\n{args.agents} agents x {args.calls} calls (+1 first call each, which gets the handle), "
              f"think {args.think_ms} ms, seed {args.seed}; protocol 2026-07-28, agent=HANDLE on every call")
        print(f"| tool | one server p50 / p95 ms | {args.replicas} replicas p50 / p95 ms | p95 ratio |")
        print("| --- | --- | --- | --- |")
        for tool in ["first"] + tools:
            x, y = a["latency"][tool], b["latency"][tool]
            label = "first call (new agent, read_file)" if tool == "first" else tool
            print(f"| {label} | {x[0]:.0f} / {x[1]:.0f} | {y[0]:.0f} / {y[1]:.0f} | {y[1] / max(x[1], 0.1):.2f}x |")
        for label, p in (("one server", a), (f"{args.replicas} replicas", b)):
            print(f"{label}: {p['calls']} calls in {p['elapsed_s']:.1f} s ({p['calls'] / p['elapsed_s']:.1f} calls/s); "
                  f"failed {p['protocol']}, tool errors (isError) {p['tool']}")
            for why in p["failures"][:5]:
                print(f"  failed: {why}")
            for why in p["tool_errors"][:3]:
                print(f"  isError: {why}")
        total = sum(b["replicas"].values())
        print("calls per replica: " + ", ".join(f"{n} {c} ({c / max(total, 1) * 100:.0f}%)"
                                                for n, c in sorted(b["replicas"].items()))
              + f"; of {total} calls through HAProxy")
        print("agents by how many replicas served them: "
              + ", ".join(f"{k}: {v}" for k, v in sorted(b["agents_on"].items())))
        print(f"Note: the {args.replicas} replicas, HAProxy, PostgreSQL and the {args.agents} clients share this "
              f"machine's {os.cpu_count()} cores, as the one server did: this shows correctness (no call fails, any "
              "replica serves any agent), not speed.")

        if args.out:
            with open(args.out, "w") as f:
                json.dump({"args": vars(args), "corpus_files": len(files), "phases": {
                    k: {kk: vv for kk, vv in v.items()} for k, v in phases.items()}}, f, indent=1)
    finally:
        servers.close()
        if db:
            db.close()
        for name in sorted(os.listdir(work)) if os.path.isdir(work) else []:
            if name.endswith(".stderr"):
                text = tail(os.path.join(work, name), 10**6)
                if "ERROR" in text or "panick" in text:
                    print(f"\n{name} shows ERROR or a panic; its tail:\n{tail(os.path.join(work, name))}")
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
