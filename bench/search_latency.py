"""`search` latency through a running `tack serve` on one corpus: building the search index from
nothing, a cold first query in a fresh process on a saved index, and warm queries.

usage: search_latency.py TACK ROOT [STARTS] [ROUNDS]
"""

import shutil
import statistics
import sys
import tempfile

from tack_rpc import Tack

QUERIES = [
    "json decoder fails on a trailing comma",
    "http client connection timeout is ignored",
    "email header parsing with non-ascii characters",
    "pathlib resolve loops forever on a symlink cycle",
    "asyncio task cancellation is swallowed",
    "csv writer quoting of embedded newlines",
    "zipfile extract allows path traversal",
    "RotatingFileHandler does not roll over",
    "decimal rounding mode ROUND_HALF_EVEN",
    "argparse subparser help is missing",
]


class Server(Tack):
    def __init__(self, tack, root, store):
        super().__init__(tack, root, store)

    def call(self, tool, args):
        return super().call(tool, args)[3] * 1000


def main():
    tack, root = sys.argv[1], sys.argv[2]
    starts = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 3
    store = tempfile.mkdtemp(prefix="tack-latency-")
    try:
        measure(tack, root, store, starts, rounds)
    finally:
        shutil.rmtree(store, ignore_errors=True)


def measure(tack, root, store, starts, rounds):
    server = Server(tack, root, store)
    server.call("repo_map", {"tokens": 256})  # the symbol index is ready
    build = server.call("search", {"query": "index build", "limit": 10})
    server.close()
    cold = []
    for i in range(starts):
        server = Server(tack, root, store)
        server.call("repo_map", {"tokens": 256})
        cold.append(server.call("search", {"query": QUERIES[i % len(QUERIES)], "limit": 10}))
        server.close()
    server = Server(tack, root, store)
    server.call("repo_map", {"tokens": 256})
    warm = sorted(server.call("search", {"query": q, "limit": 10}) for _ in range(rounds) for q in QUERIES)
    server.close()
    cold.sort()
    print(
        f"search_index_build_ms={build:.0f} cold_p50_ms={statistics.median(cold):.1f} cold_max_ms={cold[-1]:.1f} "
        f"warm_p50_ms={statistics.median(warm):.1f} warm_p95_ms={warm[int(0.95 * (len(warm) - 1))]:.1f}"
    )


if __name__ == "__main__":
    main()
