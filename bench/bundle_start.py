"""Starting from an index bundle against starting cold: the time from `tack serve` starting on an
empty store to its first `search` answer and then its first unfocused map, three ways, each in a
fresh store and a fresh process:

  cold     no bundle: the index is built from nothing;
  bundle   `--bundle FILE` on a checkout of exactly the bundle's tree;
  changed  `--bundle FILE` on a copy of the tree with CHANGED source files edited (a line
           appended), the overlay's cost.

usage: bundle_start.py TACK ROOT [CHANGED] [RUNS]

Writes the bundle with `tack index --bundle` first (its time and size printed), then alternates
the three ways RUNS times (default 3) and prints each one's median. The copy for `changed` is
made under /tmp and removed after.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from tack_rpc import Tack

QUERY = "parse the configuration file"


def first_answers(tack, root, bundle):
    """Seconds from start to the first search answer, then to the first map, and the server's
    peak memory (KiB)."""
    # A folder of its own: no other store beside it that a worktree could start from.
    parent = tempfile.mkdtemp(prefix="tack-bundle-store-")
    store = os.path.join(parent, "store")
    try:
        started = time.perf_counter()
        server = Tack(tack, root, store, extra_args=(["--bundle", bundle] if bundle else []))
        server.call("search", {"query": QUERY, "limit": 5})
        searched = time.perf_counter() - started
        server.call("repo_map", {})
        mapped = time.perf_counter() - started
        peak = server.peak_rss_kib()
        server.close()
        return searched, mapped, peak
    finally:
        shutil.rmtree(parent, ignore_errors=True)


def edited_copy(root, n):
    """A copy of `root` with `n` source files (by sorted path) given one more line."""
    copy = tempfile.mkdtemp(prefix="tack-bundle-copy-")
    shutil.copytree(root, copy, dirs_exist_ok=True, symlinks=True)
    exts = (".py", ".rs", ".go", ".ts", ".js", ".java", ".c", ".h", ".rb", ".cs", ".kt", ".swift", ".php")
    sources = sorted(
        os.path.join(d, f) for d, _, fs in os.walk(copy) if "/.git" not in d for f in fs if f.endswith(exts)
    )
    step = max(1, len(sources) // max(n, 1))
    for path in sources[::step][:n]:
        with open(path, "a") as f:
            f.write("\n// changed by bundle_start.py\n" if not path.endswith((".py", ".rb")) else "\n# changed\n")
    return copy


def main():
    tack, root = sys.argv[1], os.path.abspath(sys.argv[2])
    changed = int(sys.argv[3]) if len(sys.argv) > 3 else 100
    runs = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    work = tempfile.mkdtemp(prefix="tack-bundle-")
    bundle = os.path.join(work, "index.bundle")
    store = os.path.join(work, "store")
    started = time.perf_counter()
    out = subprocess.run([tack, "index", "--root", root, "--index-dir", store, "--bundle", bundle],
                         capture_output=True, text=True, env={**os.environ, "TACK_LOG": "warn"})
    print(f"tack index --bundle: {time.perf_counter() - started:.1f} s; {out.stdout.strip()}")
    copy = edited_copy(root, changed)
    ways = {"cold": (root, None), "bundle": (root, bundle), f"changed {changed}": (copy, bundle)}
    got = {w: [] for w in ways}
    try:
        for _ in range(runs):
            for way, (r, b) in ways.items():
                got[way].append(first_answers(tack, r, b))
    finally:
        shutil.rmtree(copy, ignore_errors=True)
        shutil.rmtree(work, ignore_errors=True)
    cold = statistics.median(s for s, _, _ in got["cold"])
    for way, values in got.items():
        search = statistics.median(s for s, _, _ in values)
        mapped = statistics.median(m for _, m, _ in values)
        peak = max(p for _, _, p in values)
        print(f"{way:12} first search {search:6.2f} s ({search / cold:.2f}x cold), first map {mapped:6.2f} s, "
              f"peak {peak / 1024:.0f} MiB")


if __name__ == "__main__":
    main()
