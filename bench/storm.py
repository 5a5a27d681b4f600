"""One agent's burst against another agent's calls, on one `tack serve --http`: the latency of a
quiet session's calls alone, then while a second session keeps many searches in flight at once
(a burst of parallel tool calls), in the same server run. tack runs one session's quick calls on
at most one worker per core at once, so the burst takes its share of the cores and no more.

usage: storm.py TACK ROOT [--burst 32] [--calls 200] [--seed 1]

ROOT is read, never written (the index goes to a temporary folder). Prints the quiet session's
per-tool p50/p95/max alone and during the burst, and the burst's own throughput.
"""

import argparse
import copy
import multiprocessing
import os
import random
import shutil
import tempfile
import threading
import time

from load import QUERIES, Session, percentiles, scan, start_server, workload

QUIET_TOOLS = ["read_file", "definition", "search"]


def burst(host, session_id, width, stop, done):
    """`width` searches always in flight from one session, until `stop`; counts them in `done`."""
    base = Session.__new__(Session)
    base.host, base.id, base.next, base.conn = host, session_id, 0, None

    def loop(k):
        mine = copy.copy(base)
        # Request ids stay unique within the session: each thread counts in its own range.
        mine.next = (k + 1) * 1_000_000
        rng = random.Random(k)
        while not stop.is_set():
            mine.call("search", {"query": rng.choice(QUERIES)})
            with done.get_lock():
                done.value += 1

    threads = [threading.Thread(target=loop, args=(k,)) for k in range(width)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tack")
    parser.add_argument("root")
    parser.add_argument("--burst", type=int, default=32)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    files, names = scan(args.root, random.Random(args.seed))
    work = tempfile.mkdtemp(prefix="tack-storm-")
    server, host = start_server(args.tack, args.root, os.path.join(work, "index"))
    try:
        quiet = Session(host)
        ms, _, _ = quiet.call("search", {"query": "warm up"})
        print(f"corpus: {len(files)} Python files; first call (index built) {ms / 1000:.1f} s")
        calls = workload(files, names, random.Random(args.seed), args.calls, QUIET_TOOLS)

        def measure():
            out = {tool: [] for tool in QUIET_TOOLS}
            for tool, targs in calls:
                ms, _, _ = quiet.call(tool, targs)
                out[tool].append(ms)
            return out

        measure()
        alone = measure()
        stormer = Session(host)
        stop, done = multiprocessing.Event(), multiprocessing.Value("i", 0)
        process = multiprocessing.get_context("fork").Process(
            target=burst, args=(host, stormer.id, args.burst, stop, done))
        process.start()
        time.sleep(2)
        started, before = time.perf_counter(), done.value
        during = measure()
        elapsed, finished = time.perf_counter() - started, done.value - before
        stop.set()
        process.join()
        print(f"one session's calls alone, then while another keeps {args.burst} searches in flight")
        print("| tool | alone p50 / p95 / max ms | during the burst p50 / p95 / max ms | ratio p95 |")
        print("| --- | --- | --- | --- |")
        for tool in QUIET_TOOLS:
            a, b = percentiles(alone[tool]), percentiles(during[tool])
            print(f"| {tool} | {a[0]:.0f} / {a[1]:.0f} / {a[2]:.0f} | {b[0]:.0f} / {b[1]:.0f} / {b[2]:.0f} "
                  f"| {b[1] / max(a[1], 0.1):.1f}x |")
        print(f"the burst meanwhile: {finished} searches in {elapsed:.1f} s ({finished / elapsed:.0f} a second)")
    finally:
        server.kill()
        server.wait()
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
