"""How long a warm `context` call takes, beside `search` on the same tasks in the same server.

    python3 bench/context_latency.py TACK_BINARY ROOT INDEX_DIR [--rounds 3]

ROOT is any repository (the issue's figure is on CPython's standard library, the running
Python's `sysconfig.get_paths()["stdlib"]`). The server is started over stdio, its index built,
and one warm-up call of each tool made; then each of the twenty tasks below is asked of
`context` and of `search`, alternating, `--rounds` times with the rounds' tasks in a different
order (no call repeats within a round, so no result comes from a repeated call). Prints p50 and
p95 of each tool's wall time, the ratio of the p50s, and the server's peak RSS once warm and at
the end.
"""

import argparse
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(__file__))
from tack_rpc import Tack, pct  # noqa: E402

TASKS = [
    "json.dumps with sort_keys=True raises TypeError when keys mix int and str",
    "shutil.copytree ignores dirs_exist_ok when symlinks=True and the destination exists",
    "argparse: a mutually exclusive group inside an argument group loses its help title",
    "pathlib.Path.glob('**') does not follow symlinks to directories",
    "http.client.HTTPResponse.read hangs on a chunked response without a final chunk",
    "logging.handlers.RotatingFileHandler rolls over on every emit when maxBytes is 0",
    "csv.DictReader drops the last field when a row has a trailing delimiter",
    "tarfile extractall does not restore the modification time of directories",
    "email.utils.parseaddr returns an empty address for a quoted display name with a comma",
    "zipfile.ZipFile.writestr with compress_type ignores compresslevel",
    "subprocess.run with timeout leaves the child running after TimeoutExpired",
    "asyncio.wait_for cancels the inner task but swallows its exception",
    "datetime.strptime with %z rejects a colon in the UTC offset",
    "urllib.parse.urljoin drops the last path segment of a base without trailing slash",
    "configparser interpolation fails when a value contains a percent sign",
    "dataclasses.replace raises for fields with init=False",
    "functools.lru_cache cache_info reports wrong currsize after cache_clear",
    "textwrap.dedent keeps whitespace-only lines indented",
    "inspect.signature fails on a functools.partial of a classmethod",
    "socketserver.ThreadingMixIn does not join threads on server_close",
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("root")
    ap.add_argument("index_dir")
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()
    tack = Tack(args.binary, args.root, args.index_dir)
    # Warm: the index loaded, the text index built, the tokenizer ready.
    tack.call("search", {"query": "warm up the text index"})
    tack.call("context", {"task": "warm up the function ranking"})
    warm_rss = tack.peak_rss_kib()
    times = {"context": [], "search": []}
    sizes = []
    rng = random.Random(7)
    for _ in range(args.rounds):
        order = TASKS[:]
        rng.shuffle(order)
        for task in order:
            data, text, is_error, secs = tack.call("context", {"task": task})
            assert not is_error, text
            times["context"].append(secs * 1000)
            sizes.append(data["tokens"])
            _, text, is_error, secs = tack.call("search", {"query": task})
            assert not is_error, text
            times["search"].append(secs * 1000)
    for tool, ms in times.items():
        print(f"{tool}: p50 {pct(ms, 50):.1f} ms, p95 {pct(ms, 95):.1f} ms over {len(ms)} calls")
    print(f"context p50 / search p50: {pct(times['context'], 50) / pct(times['search'], 50):.2f}")
    print(f"context tokens: median {statistics.median(sizes):.0f}, max {max(sizes)}")
    print(f"server peak RSS: {warm_rss} KiB once warm, {tack.peak_rss_kib()} KiB after every call")


if __name__ == "__main__":
    main()
