"""Many repositories behind one `tack serve`: the time of a `search` on a repository whose index is
closed (loaded on the call) against one on a repository already open, the server's memory as
repositories open and close under `--max-open`, and one search over all of them (repo="*").

usage: many_repos.py TACK WORKSPACE [--max-open N] [--index-dir DIR] [--query-file FILE]
                     [--rounds K] [--limit L] [--timeout S] [--out FILE] [--log FILE]

WORKSPACE's immediate subdirectories (hidden ones skipped, links followed) are the repositories;
each is named by its real folder's name, as the server names it, and its store is DIR/<name>.
First every repository without DIR/<name>/index.bin is indexed with `TACK index --root R
--index-dir DIR/<name>`, one after the other (progress and times on stderr). Then one server is
started, `TACK serve --structured --index-dir DIR --max-open N --root R1 --root R2 ...`
(TACK_LOG=warn), and for K rounds (default 2) each repository in turn gets two `search` calls with
the same query and {"repo": <name>}: call 1, then call 2 at once. Each call is counted as on a
"closed" or an "open" repository by replaying the server's least-recently-used rule (N open at
most, default 8): with N below the number of repositories, every call 1 is on a closed
repository in every round, every call 2 on an open one. The server's VmRSS and VmHWM
(/proc/PID/status) are read after every call. Last, one search with repo="*": its time and how
many repositories its results come from.

Queries: "error", "test", "config", "parse" (round k uses the k-th, cycling), or --query-file:
one query a line (cycled the same way), or `NAME<TAB>query` lines that give repository NAME its
own queries; blank lines and lines starting with # are skipped. The repo="*" search uses the
first general query.

Without --index-dir, the indexes go to a fresh temporary folder, removed at the end; pass
--index-dir to keep them for the next run. --out writes every number as JSON; --log keeps the
server's stderr. A call that answers an error is printed and counted, and the run goes on.
"""

import argparse
import json
import os
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import OrderedDict

from tack_rpc import Tack, pct

QUERIES = ["error", "test", "config", "parse"]


def say(*parts):
    print(*parts, file=sys.stderr, flush=True)


class ServerGone(Exception):
    """The server closed its output or did not answer in time."""


class Many(Tack):
    """`tack serve` over several roots: Tack's client, with a list of roots, a reader thread (so a
    call can time out), and the server's stderr kept in a file to show when it fails."""

    def __init__(self, binary, roots, index_dir, max_open, stderr_path, timeout, log="warn"):
        self.timeout = timeout
        self.stderr_path = stderr_path
        self.stderr_file = open(stderr_path, "w")
        args = [binary, "serve", "--structured", "--index-dir", index_dir, "--max-open", str(max_open)]
        for root in roots:
            args += ["--root", root]
        self.proc = subprocess.Popen(
            args,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self.stderr_file,
            text=True,
            env={**os.environ, "TACK_LOG": log},
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 0
        try:
            self.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
            self._send({"jsonrpc": "2.0", "method": "notifications/initialized"})
        except ServerGone:
            self.kill()
            raise

    def kill(self):
        self.proc.kill()
        self.proc.wait()
        self.stderr_file.close()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _send(self, msg):
        try:
            self.proc.stdin.write(json.dumps(msg) + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as err:
            raise ServerGone(f"cannot write to the server: {err}") from None

    def request(self, method, params):
        self.next_id += 1
        self._send({"jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params})
        deadline = time.monotonic() + self.timeout
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise ServerGone(f"no answer to {method} in {self.timeout:g} s") from None
            if line is None:
                code = self.proc.wait(timeout=10)
                raise ServerGone(f"the server closed its output (exit code {code})")
            try:
                msg = json.loads(line)
            except json.JSONDecodeError:
                say(f"  (not JSON from the server: {line.strip()[:200]})")
                continue
            if msg.get("id") == self.next_id:
                return msg

    def call(self, tool, args):
        """The structured result, the text, whether it is an error, and the seconds it took; a
        JSON-RPC error (no `result`) is an error whose text is its message."""
        started = time.perf_counter()
        reply = self.request("tools/call", {"name": tool, "arguments": args})
        elapsed = time.perf_counter() - started
        if "result" not in reply:
            error = reply.get("error", {})
            return None, f"JSON-RPC error {error.get('code')}: {error.get('message')}", True, elapsed
        result = reply["result"]
        content = result.get("content") or [{}]
        return result.get("structuredContent"), content[0].get("text", ""), result.get("isError", False), elapsed

    def memory_kib(self):
        """The server's resident memory now (VmRSS) and its peak so far (VmHWM), in KiB."""
        got = {}
        try:
            with open(f"/proc/{self.proc.pid}/status") as f:
                for line in f:
                    if line.startswith(("VmRSS:", "VmHWM:")):
                        got[line.split(":")[0]] = int(line.split()[1])
        except OSError:
            pass
        return got.get("VmRSS", 0), got.get("VmHWM", 0)

    def stderr_tail(self, lines=20):
        self.stderr_file.flush()
        with open(self.stderr_path, errors="replace") as f:
            return "".join(f.readlines()[-lines:]).rstrip()

    def close(self):
        try:
            self.proc.stdin.close()
        except OSError:
            pass
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.stderr_file.close()


def repositories(workspace):
    """(name, real path) of each non-hidden folder in `workspace`, by name; a second folder with
    the same real name is left out (the server could not tell them apart)."""
    repos, seen = [], {}
    for entry in sorted(os.scandir(workspace), key=lambda e: e.name):
        if entry.name.startswith(".") or not entry.is_dir():
            continue
        real = os.path.realpath(entry.path)
        name = os.path.basename(real)
        if name in seen:
            say(f"skipping {entry.path}: its name {name} is taken by {seen[name]}")
            continue
        seen[name] = real
        repos.append((name, real))
    return repos


def count_files(root):
    """The repository's files, cheaply: git's tracked and unignored files, else a walk without
    hidden files and folders (tack's own count, from `tack index`, is preferred when there is one)."""
    if os.path.exists(os.path.join(root, ".git")):
        out = subprocess.run(["git", "-C", root, "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                             capture_output=True)
        if out.returncode == 0:
            return len([p for p in out.stdout.split(b"\0") if p]), "git ls-files"
    n = 0
    for _, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if not d.startswith(".")]
        n += sum(1 for f in files if not f.startswith("."))
    return n, "walk"


def pre_index(tack, repos, index_dir):
    """Index each repository without a saved index into its own store; one record a repository."""
    records = []
    total = time.perf_counter()
    for i, (name, root) in enumerate(repos, 1):
        store = os.path.join(index_dir, name)
        record = {"name": name, "root": root, "store": store, "indexed": False, "index_seconds": None,
                  "files": None, "files_from": None}
        if os.path.exists(os.path.join(store, "index.bin")):
            say(f"[{i}/{len(repos)}] {name}: saved index found")
        else:
            say(f"[{i}/{len(repos)}] {name}: indexing ...")
            started = time.perf_counter()
            out = subprocess.run([tack, "index", "--root", root, "--index-dir", store],
                                 capture_output=True, text=True, env={**os.environ, "TACK_LOG": "warn"})
            record["index_seconds"] = time.perf_counter() - started
            record["indexed"] = out.returncode == 0
            if out.returncode != 0:
                say(f"    tack index failed (exit code {out.returncode}): {(out.stderr or out.stdout).strip()[-2000:]}")
            else:
                say(f"    {record['index_seconds']:.1f} s; {out.stdout.strip()}")
                found = re.search(r"^(\d+) files,", out.stdout, re.M)
                if found:
                    record["files"], record["files_from"] = int(found.group(1)), "tack index"
        if record["files"] is None:
            record["files"], record["files_from"] = count_files(root)
        records.append(record)
    say(f"pre-index: {time.perf_counter() - total:.1f} s for {len(repos)} repositories")
    return records


def read_queries(path):
    general, per_repo = [], {}
    with open(path) as f:
        for line in f:
            line = line.rstrip("\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if "\t" in line:
                name, query = line.split("\t", 1)
                per_repo.setdefault(name.strip(), []).append(query.strip())
            else:
                general.append(line.strip())
    return general or QUERIES, per_repo


def first_line(text):
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def main():
    parser = argparse.ArgumentParser(description="search latency and memory of one tack serve over many repositories")
    parser.add_argument("tack", help="the tack binary")
    parser.add_argument("workspace", help="a folder whose subdirectories are the repositories")
    parser.add_argument("--max-open", type=int, default=8, help="repositories open at once (default 8)")
    parser.add_argument("--index-dir", help="where the stores go, DIR/<name> (default: a fresh temporary folder, removed after)")
    parser.add_argument("--query-file", help="queries, one a line, or NAME<TAB>query for one repository")
    parser.add_argument("--rounds", type=int, default=2, help="rounds over every repository (default 2)")
    parser.add_argument("--limit", type=int, help="the search limit (default: the tool's)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds to wait for one answer (default 600)")
    parser.add_argument("--out", help="write every number as JSON here")
    parser.add_argument("--log", help="keep the server's stderr in this file")
    args = parser.parse_args()

    tack = os.path.abspath(args.tack) if os.sep in args.tack else args.tack
    repos = repositories(args.workspace)
    if len(repos) < 2:
        sys.exit(f"{args.workspace} holds {len(repos)} repositories; this benchmark needs at least 2")
    general, per_repo = read_queries(args.query_file) if args.query_file else (QUERIES, {})
    for name in sorted(set(per_repo) - {n for n, _ in repos}):
        say(f"{args.query_file}: no repository {name} in {args.workspace}; its queries are not used")
    temporary = args.index_dir is None
    index_dir = tempfile.mkdtemp(prefix="tack-many-") if temporary else os.path.abspath(args.index_dir)
    os.makedirs(index_dir, exist_ok=True)
    report = {"tack": tack, "workspace": os.path.abspath(args.workspace), "index_dir": index_dir,
              "max_open": args.max_open, "rounds": args.rounds, "limit": args.limit}
    try:
        report["repos"] = pre_index(tack, repos, index_dir)
        measure(tack, repos, index_dir, args, general, per_repo, report)
    finally:
        if args.out:
            with open(args.out, "w") as f:
                json.dump(report, f, indent=1)
        if temporary:
            shutil.rmtree(index_dir, ignore_errors=True)
    if report.get("failed"):
        sys.exit(1)


def measure(tack, repos, index_dir, args, general, per_repo, report):
    if args.log:
        measure_logged(tack, repos, index_dir, args, general, per_repo, report, args.log)
        return
    fd, stderr_path = tempfile.mkstemp(prefix="tack-many-serve-", suffix=".log")
    os.close(fd)
    try:
        measure_logged(tack, repos, index_dir, args, general, per_repo, report, stderr_path)
    finally:
        os.remove(stderr_path)


def measure_logged(tack, repos, index_dir, args, general, per_repo, report, stderr_path):
    spawned = time.perf_counter()
    try:
        server = Many(tack, [root for _, root in repos], index_dir, args.max_open, stderr_path, args.timeout)
    except (ServerGone, OSError) as err:
        with open(stderr_path, errors="replace") as f:
            tail = "".join(f.readlines()[-20:]).rstrip()
        print(f"tack serve did not start: {err}\n{tail or '(nothing on its stderr)'}\n"
              f"(does {tack} know --max-open and several --root? this benchmark needs the multi-repository server)")
        report["failed"] = f"serve did not start: {err}: {tail}"
        summarize(report)
        return
    report["start_ms"] = (time.perf_counter() - spawned) * 1000
    report["start_rss_kib"], report["start_hwm_kib"] = server.memory_kib()
    say(f"server up in {report['start_ms']:.0f} ms, RSS {report['start_rss_kib'] / 1024:.0f} MiB")

    calls = report["calls"] = []
    lru = OrderedDict()  # the repositories the server should have open, least recently used first
    try:
        for k in range(args.rounds):
            for name, _ in repos:
                own = per_repo.get(name)
                query = own[k % len(own)] if own else general[k % len(general)]
                search = {"query": query, "repo": name}
                if args.limit:
                    search["limit"] = args.limit
                for n in (1, 2):
                    state = "open" if name in lru else "closed"
                    lru[name] = True
                    lru.move_to_end(name)
                    while len(lru) > args.max_open:
                        lru.popitem(last=False)
                    structured, text, is_error, seconds = server.call("search", search)
                    rss, hwm = server.memory_kib()
                    results = len((structured or {}).get("results", []))
                    calls.append({"round": k + 1, "repo": name, "call": n, "state": state, "query": query,
                                  "ms": seconds * 1000, "error": text if is_error else None,
                                  "results": results, "rss_kib": rss, "hwm_kib": hwm})
                    mark = f"ERROR: {first_line(text)}" if is_error else f"{results} results"
                    say(f"round {k + 1} {name} call {n} ({state}): {seconds * 1000:.0f} ms, "
                        f"RSS {rss / 1024:.0f} MiB, peak {hwm / 1024:.0f} MiB, {mark}")
        star = {"query": general[0], "repo": "*"}
        if args.limit:
            star["limit"] = args.limit
        structured, text, is_error, seconds = server.call("search", star)
        rss, hwm = server.memory_kib()
        results = (structured or {}).get("results", [])
        report["star"] = {"query": general[0], "ms": seconds * 1000, "error": text if is_error else None,
                          "results": len(results), "repos": sorted({r.get("repo") for r in results if r.get("repo")}),
                          "rss_kib": rss, "hwm_kib": hwm}
        if is_error:
            print(f"search repo=\"*\": ERROR: {first_line(text)}")
        elif results and not report["star"]["repos"]:
            print(f"search repo=\"*\": no result carries a \"repo\" field ({first_line(text)})")
    except ServerGone as err:
        tail = server.stderr_tail()
        print(f"the server stopped answering: {err}\n{tail or '(nothing on its stderr)'}")
        report["failed"] = f"{err}: {tail}"
    report["end_rss_kib"], report["end_hwm_kib"] = server.memory_kib()
    if not report.get("failed"):
        server.close()
    else:
        server.kill()
    summarize(report)


def summarize(report):
    repos, calls = report["repos"], report.get("calls", [])
    files = sum(r["files"] or 0 for r in repos)
    sources = sorted({r["files_from"] for r in repos if r["files_from"]})
    indexed = [r["index_seconds"] for r in repos if r["index_seconds"] is not None]
    ok = [c for c in calls if not c["error"]]
    closed = [c["ms"] for c in ok if c["state"] == "closed"]
    opened = [c["ms"] for c in ok if c["state"] == "open"]
    errors = len(calls) - len(ok)
    hwm = max([c["hwm_kib"] for c in calls] + [report.get("end_hwm_kib", 0), report.get("start_hwm_kib", 0)])
    summary = report["summary"] = {
        "repos": len(repos), "files": files, "files_from": sources,
        "index_seconds": sum(indexed), "indexed": len(indexed),
        "closed_calls": len(closed), "open_calls": len(opened), "errors": errors,
        "closed_p50_ms": pct(closed, 50) if closed else None,
        "closed_p95_ms": pct(closed, 95) if closed else None,
        "closed_max_ms": max(closed) if closed else None,
        "open_p50_ms": pct(opened, 50) if opened else None,
        "open_p95_ms": pct(opened, 95) if opened else None,
        "peak_rss_mib": hwm / 1024, "end_rss_mib": report.get("end_rss_kib", 0) / 1024,
        "star_ms": report.get("star", {}).get("ms"), "star_repos": len(report.get("star", {}).get("repos", [])),
    }
    fmt = lambda v: "-" if v is None else f"{v:.0f}"
    print(f"{summary['repos']} repositories, {files} files ({', '.join(sources)}); "
          f"max-open {report['max_open']}, {report['rounds']} rounds; "
          f"indexed {summary['indexed']} in {summary['index_seconds']:.1f} s")
    if not calls:
        return
    print(f"search on a closed repository: p50 {fmt(summary['closed_p50_ms'])} ms, p95 {fmt(summary['closed_p95_ms'])} ms, "
          f"max {fmt(summary['closed_max_ms'])} ms ({len(closed)} calls)")
    print(f"search on an open repository:  p50 {fmt(summary['open_p50_ms'])} ms, p95 {fmt(summary['open_p95_ms'])} ms "
          f"({len(opened)} calls)")
    print(f"memory: peak (VmHWM) {summary['peak_rss_mib']:.0f} MiB, RSS at the end {summary['end_rss_mib']:.0f} MiB")
    if "star" in report:
        star = report["star"]
        print(f"search repo=\"*\": {fmt(star['ms'])} ms, {star['results']} results from {len(star['repos'])} repositories"
              + (" (an error)" if star["error"] else ""))
    if errors:
        print(f"{errors} calls answered an error")


if __name__ == "__main__":
    main()
