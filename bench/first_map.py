"""The first unfocused `repo_map` of a fresh `tack serve` whose index is already on disk, then a
focused map of the same server: several binaries, each with its own saved index, started in turn
(alternating) in one run, so their figures compare like with like.

usage: first_map.py ROOT STARTS FOCUS TACK:INDEX_DIR [TACK:INDEX_DIR ...] [--tokens N] [--pause S] [--log DIR]

Each index directory must hold an index of ROOT its binary saved (`tack index --root ROOT
--index-dir INDEX_DIR`). "first" is the `repo_map` call sent right after the handshake (it waits
for the server's first scan of ROOT, which finds nothing changed), "spawn" the time from starting
the process to that map's answer, "focused" a map for FOCUS asked next (with --pause, S seconds
after the first map's answer: once what a server makes after its first scan is made). With
--log, each server's debug log is written to DIR/<binary name>-<start>.log (the map's phases).
The texts of the first maps, and of the focused ones, are compared: every binary should show
the same bytes.
"""

import hashlib
import os
import statistics
import subprocess
import sys
import time

from tack_rpc import Tack


def one_start(binary, root, index_dir, focus, tokens, pause, log_path):
    stderr = open(log_path, "w") if log_path else subprocess.DEVNULL
    spawned = time.perf_counter()
    server = Tack(binary, root, index_dir, stderr=stderr, log="tack=debug,tack_indexer=debug,tack_tools=debug" if log_path else "warn")
    _, text, is_error, first = server.call("repo_map", {"tokens": tokens})
    from_spawn = time.perf_counter() - spawned
    time.sleep(pause)
    _, focused_text, _, focused = server.call("repo_map", {"tokens": tokens, "focus": [focus]})
    rss = server.peak_rss_kib()
    server.close()
    if log_path:
        stderr.close()
    assert not is_error, text
    digest = lambda t: hashlib.sha256(t.encode()).hexdigest()[:16]
    return first * 1000, from_spawn * 1000, focused * 1000, rss, digest(text), digest(focused_text)


def main():
    args = sys.argv[1:]
    tokens, pause, log_dir = 1024, 0.0, None
    if "--tokens" in args:
        i = args.index("--tokens")
        tokens = int(args[i + 1])
        del args[i : i + 2]
    if "--pause" in args:
        i = args.index("--pause")
        pause = float(args[i + 1])
        del args[i : i + 2]
    if "--log" in args:
        i = args.index("--log")
        log_dir = args[i + 1]
        os.makedirs(log_dir, exist_ok=True)
        del args[i : i + 2]
    root, starts, focus = args[0], int(args[1]), args[2]
    binaries = [tuple(spec.split(":", 1)) for spec in args[3:]]
    samples = {b: [] for b in binaries}
    for start in range(starts):
        for binary, index_dir in binaries:
            name = os.path.basename(binary)
            log_path = os.path.join(log_dir, f"{name}-{start}.log") if log_dir else None
            sample = one_start(binary, root, index_dir, focus, tokens, pause, log_path)
            samples[(binary, index_dir)].append(sample)
            print(
                f"{name} start {start}: first {sample[0]:.0f} ms, spawn to first {sample[1]:.0f} ms, "
                f"focused {sample[2]:.0f} ms, peak {sample[3]} KiB, map {sample[4]}",
                flush=True,
            )
    for (binary, index_dir), runs in samples.items():
        column = lambda k: [r[k] for r in runs]
        print(
            f"{binary}: first_p50_ms={statistics.median(column(0)):.0f} first_max_ms={max(column(0)):.0f} "
            f"spawn_to_first_p50_ms={statistics.median(column(1)):.0f} "
            f"focused_p50_ms={statistics.median(column(2)):.0f} peak_rss_kib={max(column(3))} "
            f"maps={sorted(set(column(4)))}"
        )
    maps = {r[4] for runs in samples.values() for r in runs}
    print("every first map the same bytes" if len(maps) == 1 else f"first maps DIFFER: {sorted(maps)}")
    focused = {r[5] for runs in samples.values() for r in runs}
    print("every focused map the same bytes" if len(focused) == 1 else f"focused maps DIFFER: {sorted(focused)}")


if __name__ == "__main__":
    main()
