"""repo_map latency through a running `tack serve`, and the time from a file write to the map
showing it. Speaks raw JSON-RPC over stdio, so it needs nothing but Python.

usage: map_latency.py TACK ROOT INDEX_DIR FOCUS EXT [RUNS]
"""

import json
import os
import statistics
import subprocess
import sys
import time


def main():
    tack, root, index_dir, focus, ext = sys.argv[1:6]
    runs = int(sys.argv[6]) if len(sys.argv) > 6 else 30
    proc = subprocess.Popen(
        [tack, "serve", "--root", root, "--index-dir", index_dir],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env={**os.environ, "TACK_LOG": "warn"},
    )
    next_id = [0]

    def request(method, params):
        next_id[0] += 1
        proc.stdin.write(json.dumps({"jsonrpc": "2.0", "id": next_id[0], "method": method, "params": params}) + "\n")
        proc.stdin.flush()
        while True:
            msg = json.loads(proc.stdout.readline())
            if msg.get("id") == next_id[0]:
                return msg

    def repo_map(args):
        reply = request("tools/call", {"name": "repo_map", "arguments": args})
        return reply["result"]["content"][0]["text"]

    request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "bench", "version": "0"}})
    proc.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    proc.stdin.flush()
    repo_map({})  # waits for the index to be ready

    def timed(args):
        samples = []
        for _ in range(runs):
            t = time.perf_counter()
            repo_map(args)
            samples.append((time.perf_counter() - t) * 1000)
        samples.sort()
        return statistics.median(samples), samples[int(0.95 * (len(samples) - 1))]

    no_focus = timed({})
    with_focus = timed({"focus": [focus]})

    write_to_map = []
    for k in range(10):
        name = f"tack_bench_probe_{k}"
        path = os.path.join(root, f"{name}.{ext}")
        body = f"def {name}():\n    return {k}\n" if ext == "py" else f"pub fn {name}() -> u32 {{\n    {k}\n}}\n"
        # The focus is echoed in the map's header: look for the definition line itself.
        shown = f"def {name}(" if ext == "py" else f"fn {name}("
        t = time.perf_counter()
        with open(path, "w") as f:
            f.write(body)
        while shown not in repo_map({"focus": [name], "tokens": 256}):
            pass
        write_to_map.append((time.perf_counter() - t) * 1000)
        os.remove(path)
        while shown in repo_map({"focus": [name], "tokens": 256}):
            pass
    write_to_map.sort()
    proc.stdin.close()
    proc.wait(timeout=30)
    print(
        f"map_no_focus_p50_ms={no_focus[0]:.1f} map_no_focus_p95_ms={no_focus[1]:.1f} "
        f"map_focus_p50_ms={with_focus[0]:.1f} map_focus_p95_ms={with_focus[1]:.1f} "
        f"write_to_map_p50_ms={statistics.median(write_to_map):.1f} write_to_map_max_ms={write_to_map[-1]:.1f}"
    )


main()
