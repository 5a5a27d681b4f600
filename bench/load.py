"""Many agents on one `tack serve --http`: per-tool latency of one session alone, then of many
sessions at once while one more session edits a file at a fixed rate, in the same server run;
throughput, errors, read-your-writes, and the server's memory (start, peak, idle after).

The corpus is copied to a temporary folder first (the editor changes a file in it).

usage: load.py TACK ROOT [--sessions 32] [--calls 40] [--edit-ms 200] [--think-ms 0] [--tools LIST]
               [--seed 1] [--idle-s 10]

The single session makes every call that the loaded sessions will make, one after another, so
both phases' percentiles are over the same calls. Each session keeps one HTTP connection alive.

--sessions 0: only the editor, for 10 s (what one write costs).
--think-ms: each session waits this long on average (0.5x to 1.5x, drawn at random) after each
result before its next call, as an agent waits for its model, and starts at a random moment
within one think time; 0 sends every call at once.
"""

import argparse
import ast
import http.client
import json
import multiprocessing
import os
import random
import shutil
import statistics
import subprocess
import tempfile
import threading
import time

from search_latency import QUERIES

TOOLS = ["search", "read_file", "repo_map", "definition"]
EDITED = "tack_load_edited.py"


class Session:
    """One MCP session over streamable HTTP (2025-06-18), raw JSON-RPC."""

    def __init__(self, host):
        self.host = host
        self.id = None
        self.next = 0
        self.conn = None
        body = self.post("initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                        "clientInfo": {"name": "load", "version": "0"}})
        assert "result" in body, body
        self.notify("notifications/initialized")

    def _send(self, payload):
        """One POST on the session's kept-alive connection (as the clients' HTTP stacks keep
        theirs), made anew when the server closed it."""
        headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
        if self.id:
            headers["Mcp-Session-Id"] = self.id
            headers["Mcp-Protocol-Version"] = "2025-06-18"
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, timeout=120)
            try:
                self.conn.request("POST", "/mcp", json.dumps(payload), headers)
                response = self.conn.getresponse()
                text = response.read().decode()
                break
            except (http.client.HTTPException, ConnectionError):
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
        if response.will_close:
            self.conn.close()
            self.conn = None
        self.id = self.id or response.getheader("mcp-session-id")
        return response.status, text

    def post(self, method, params):
        self.next += 1
        status, text = self._send({"jsonrpc": "2.0", "id": self.next, "method": method, "params": params})
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip():
                message = json.loads(line[5:])
                if message.get("id") == self.next:
                    return message
        return json.loads(text) if text.startswith("{") else {"error": {"status": status, "text": text[:200]}}

    def notify(self, method):
        self._send({"jsonrpc": "2.0", "method": method})

    def call(self, tool, args):
        """(milliseconds, failed, text) of one tool call. `failed` is "protocol" when the request
        got no result, "tool" for a result with isError (a name not found, a line past the end)."""
        started = time.perf_counter()
        if tool == "definition":
            message = self.post("tools/call", {"name": "call_tool", "arguments": {"name": tool, "arguments": args}})
        else:
            message = self.post("tools/call", {"name": tool, "arguments": args})
        ms = (time.perf_counter() - started) * 1000
        result = message.get("result") or {}
        text = "".join(block.get("text", "") for block in result.get("content", []))
        failed = "protocol" if "error" in message or not result else ("tool" if result.get("isError") else None)
        return ms, failed, text


def memory(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field + ":"):
                return int(line.split()[1]) // 1024
    return 0


def cpu_seconds(pid):
    """User plus system CPU time the process has used."""
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def workload(files, names, rng, calls, tools=TOOLS):
    """`calls` (tool, arguments) pairs, the tools in turn, arguments drawn at random: `files` are
    (path, line count) pairs, so that a read starts inside its file."""
    out = []
    for i in range(calls):
        tool = tools[i % len(tools)]
        if tool == "search":
            out.append((tool, {"query": rng.choice(QUERIES)}))
        elif tool == "read_file":
            path, lines = rng.choice(files)
            out.append((tool, {"path": path, "start": rng.randint(1, max(1, min(200, lines)))}))
        elif tool == "repo_map":
            out.append((tool, {"focus": [rng.choice(files)[0]]}))
        else:
            out.append((tool, {"symbol": rng.choice(names)}))
    return out


def agent(session, seed, files, names, calls, think_ms, tools, out):
    """One session's calls, in a process of its own (agents are separate programs; threads of
    one Python process would also wait for each other's turn at the interpreter lock, which
    the server did not cause). Puts [(tool, ms, failed, what failed)] on `out`."""
    think = random.Random(-seed)
    results = []
    # Agents do not start in the same millisecond: each begins at a random moment within one
    # think time (without it, every session's first call, a search, would arrive at once).
    time.sleep(think_ms / 1000 * think.uniform(0, 1))
    for tool, targs in workload(files, names, random.Random(seed), calls, tools):
        ms, failed, text = session.call(tool, targs)
        results.append((tool, ms, failed, f"{tool} {json.dumps(targs)}: {text[:300]}" if failed else None))
        if think_ms:
            time.sleep(think_ms / 1000 * think.uniform(0.5, 1.5))
    out.put(results)


def percentiles(values):
    values = sorted(values)
    if not values:
        return (0, 0, 0)
    p95 = values[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]
    return (statistics.median(values), p95, values[-1])


def scan(corpus, rng):
    """The corpus's Python files as (path, line count) pairs, sorted, and names to look up: the
    first three top-level functions and classes of 200 files drawn with `rng`, as Python parses
    them (a pattern over the text also finds definitions inside string literals)."""
    files, names = [], []
    for dirpath, dirnames, filenames in os.walk(corpus):
        dirnames[:] = [d for d in dirnames if d not in ("site-packages", "__pycache__")]
        for name in filenames:
            if name.endswith(".py"):
                path = os.path.join(dirpath, name)
                with open(path, "rb") as f:
                    data = f.read()
                files.append((os.path.relpath(path, corpus), data.count(b"\n") + (not data.endswith(b"\n"))))
    files.sort()
    defined = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
    for rel, _ in rng.sample(files, min(200, len(files))):
        with open(os.path.join(corpus, rel), "rb") as f:
            try:
                tree = ast.parse(f.read())
            except (SyntaxError, ValueError):
                continue
        names += [node.name for node in tree.body if isinstance(node, defined) and len(node.name) >= 4][:3]
    return files, sorted(set(names))


def start_server(tack, root, index_dir):
    """`tack serve --http` on a free loopback port: the process and its host:port."""
    server = subprocess.Popen([tack, "serve", "--http", "127.0.0.1:0", "--root", root, "--index-dir", index_dir],
                              stderr=subprocess.PIPE, text=True, env={**os.environ, "TACK_LOG": "warn"})
    for line in server.stderr:
        if line.startswith("tack: serving MCP at "):
            url = line.split(" at ", 1)[1].strip()
            break
    else:
        raise SystemExit(f"tack exited before serving (status {server.wait()})")
    threading.Thread(target=lambda: [None for _ in server.stderr], daemon=True).start()
    return server, url.split("//", 1)[1].split("/", 1)[0]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tack")
    parser.add_argument("root")
    parser.add_argument("--sessions", type=int, default=32)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--edit-ms", type=int, default=200)
    parser.add_argument("--think-ms", type=int, default=0)
    parser.add_argument("--tools", default=",".join(TOOLS), help="the call mix, in turn (comma-separated)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--idle-s", type=float, default=10)
    args = parser.parse_args()
    tools = args.tools.split(",")
    assert set(tools) <= set(TOOLS), f"--tools takes {', '.join(TOOLS)}"

    work = tempfile.mkdtemp(prefix="tack-load-")
    corpus = os.path.join(work, "corpus")
    shutil.copytree(args.root, corpus, ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "site-packages"),
                    symlinks=True)
    with open(os.path.join(corpus, EDITED), "w") as f:
        f.write("def edited():\n    return 0\n")
    files, names = scan(corpus, random.Random(args.seed))

    server, host = start_server(args.tack, corpus, os.path.join(work, "index"))
    try:
        warm = Session(host)
        ms, _, _ = warm.call("search", {"query": "warm up"})
        print(f"corpus: {len(files)} Python files; first call (index built) {ms / 1000:.1f} s")
        for tool, targs in workload(files, names, random.Random(0), 8):
            warm.call(tool, targs)
        # The idle server: after the same rest as the one after the load.
        time.sleep(args.idle_s)
        start_rss = memory(server.pid, "VmRSS")
        start_anon = memory(server.pid, "RssAnon")

        # One session alone, making every call the loaded sessions will make, one after
        # another: the two phases' percentiles are then over the same calls (40 calls would give
        # a tool's p95 from ten samples, the slowest of ten queries).
        single = {tool: [] for tool in tools}
        errors = {"protocol": 0, "tool": 0}
        failures = []
        alone = Session(host)
        calls = [call for i in range(args.sessions)
                 for call in workload(files, names, random.Random(args.seed + 1 + i), args.calls, tools)]
        for tool, targs in calls or workload(files, names, random.Random(args.seed), args.calls, tools):
            ms, failed, _ = alone.call(tool, targs)
            single[tool].append(ms)

        # Many sessions, and an editor.
        loaded = {tool: [] for tool in tools}
        sessions = [Session(host) for _ in range(args.sessions)]
        for session in sessions:
            # Each agent process opens its own connection; none is shared across the fork.
            if session.conn:
                session.conn.close()
                session.conn = None
        stop = threading.Event()
        edits = {"done": 0, "stale": 0, "errors": 0, "ms": []}

        def editor():
            session = Session(host)
            value = 0
            while not stop.is_set():
                started = time.perf_counter()
                ms, err, text = session.call("edit_file", {"path": EDITED, "old": f"return {value}",
                                                           "new": f"return {value + 1}"})
                if err:
                    edits["errors"] += 1
                else:
                    value += 1
                    edits["done"] += 1
                    edits["ms"].append(ms)
                    # Read-your-writes: the editor's next read shows its edit.
                    _, _, seen = session.call("read_file", {"path": EDITED})
                    edits["stale"] += f"return {value}" not in seen
                    _, _, found = session.call("search", {"query": f"return {value}", "mode": "text",
                                                          "path": EDITED})
                    edits["stale"] += f"return {value}" not in found
                rest = args.edit_ms / 1000 - (time.perf_counter() - started)
                if rest > 0:
                    stop.wait(rest)

        forked = multiprocessing.get_context("fork")
        out = forked.Queue()
        agents = [forked.Process(target=agent, args=(s, args.seed + 1 + i, files, names, args.calls, args.think_ms, tools, out))
                  for i, s in enumerate(sessions)]
        edit_thread = threading.Thread(target=editor)
        peak = start_rss

        def sample():
            nonlocal peak
            while not stop.is_set():
                peak = max(peak, memory(server.pid, "VmRSS"))
                stop.wait(0.05)

        sampler = threading.Thread(target=sample)
        sampler.start()
        started = time.perf_counter()
        cpu_before = cpu_seconds(server.pid)
        edit_thread.start()
        for a in agents:
            a.start()
        for _ in agents:
            for tool, ms, failed, why in out.get():
                loaded[tool].append(ms)
                if failed:
                    errors[failed] += 1
                    failures.append(why)
        for a in agents:
            a.join()
        if not agents:
            # No sessions: the editor alone, for write->visible and the CPU one write costs.
            stop.wait(10)
        elapsed = time.perf_counter() - started
        cpu = cpu_seconds(server.pid) - cpu_before
        stop.set()
        edit_thread.join()
        sampler.join()
        time.sleep(args.idle_s)
        idle_rss = memory(server.pid, "VmRSS")
        idle_anon = memory(server.pid, "RssAnon")

        print(f"{args.sessions} sessions x {args.calls} calls, think {args.think_ms} ms, "
              f"one edit every {args.edit_ms} ms, seed {args.seed}")
        print("| tool | one session p50 / p95 / max ms | loaded p50 / p95 / max ms | ratio p50 | ratio p95 |")
        print("| --- | --- | --- | --- | --- |")
        for tool in tools:
            a, b = percentiles(single[tool]), percentiles(loaded[tool])
            print(f"| {tool} | {a[0]:.0f} / {a[1]:.0f} / {a[2]:.0f} | {b[0]:.0f} / {b[1]:.0f} / {b[2]:.0f} "
                  f"| {b[0] / max(a[0], 0.1):.1f}x | {b[1] / max(a[1], 0.1):.1f}x |")
        total = sum(len(v) for v in loaded.values())
        e = percentiles(edits["ms"])
        print(f"throughput {total / elapsed:.0f} calls/s ({total} calls in {elapsed:.1f} s); server CPU "
              f"{cpu:.1f} s ({cpu / elapsed * 100:.0f}% of one core, {cpu * 1000 / max(total, 1):.1f} ms a call); "
              f"failed requests {errors['protocol']}, tool errors {errors['tool']}")
        for why in failures[:5]:
            print(f"  {why}")
        if not agents:
            print(f"editor alone: server CPU {cpu * 1000 / max(edits['done'], 1):.0f} ms per edit "
                  f"(with its read_file and search)")
        print(f"edits {edits['done']} (p50 {e[0]:.0f} ms, p95 {e[1]:.0f} ms), failed {edits['errors']}, "
              f"reads that missed the editor's own last edit {edits['stale']}")
        # The server's own time for each call of the loaded phase (its session traces' `ms`, from
        # the call's start to its result): the rest of a client's latency is HTTP, JSON and
        # waiting for a core (the clients share the machine).
        served = {tool: [] for tool in tools}
        traces = os.path.join(work, "index", "state", "traces")
        names = sorted(os.listdir(traces), key=lambda n: int(n.rsplit("-", 1)[1].split(".")[0])) if os.path.isdir(traces) else []
        # Sessions are numbered as they start: the warm-up and the single session first, the
        # editor last.
        for name in names[2:-1]:
            with open(os.path.join(traces, name)) as f:
                for line in f:
                    record = json.loads(line)
                    if record.get("tool") in served:
                        served[record["tool"]].append(record.get("ms", 0))
        print("server's own time under the load, p50 / p95 / max ms: " + ", ".join(
            f"{tool} {p[0]:.0f} / {p[1]:.0f} / {p[2]:.0f}"
            for tool in tools if served[tool] for p in [percentiles(served[tool])]))
        print(f"memory: {start_rss} MB idle before the load, peak {peak} MB ({peak / max(start_rss, 1):.2f}x), "
              f"{idle_rss} MB after {args.idle_s:.0f} s idle; of which heap (RssAnon) {start_anon} MB before, "
              f"{idle_anon} MB after (the rest is mapped files: the search index)")
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
