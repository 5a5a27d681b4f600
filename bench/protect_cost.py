"""What looking for protected paths before and after each command costs: `run true` through
`tack serve` on roots of different sizes, two binaries in one run (the one before protected
paths were looked for at any depth, and the one after), calls alternating between all servers;
and each look's time, from the newer server's debug log.

    python3 bench/protect_cost.py BEFORE_BINARY AFTER_BINARY [--calls 55]

Roots (made under a scratch folder), each a git repository with one commit whose `.gitignore`
leaves the copied trees out of tack's index: `plain` (a few files), `cpython` (the shape of
CPython 3.11's `lib/python3.11`, site-packages included: every folder and file name, files
empty, since a look reads names only), `registry` (the shape of `~/.cargo/registry`),
`node_modules` (the same registry shape under `node_modules/`, where a look reads only the
folder's own entries), and `usr` (the shape of `/usr`).
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tack_rpc import Tack, pct  # noqa: E402


def git_repo(path, ignored=()):
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "main.py"), "w") as f:
        f.write("def main():\n    return 1\n")
    with open(os.path.join(path, ".gitignore"), "w") as f:
        f.write("".join(f"/{name}/\n" for name in ignored))
    subprocess.run(["git", "init", "-q", path], check=True)
    subprocess.run(["git", "-C", path, "add", "."], check=True)
    subprocess.run(["git", "-C", path, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "one"], check=True)


def copy_shape(source, dest):
    """Every folder and file name of `source` under `dest`, files empty, links left out.
    Returns how many entries were made."""
    made = 0
    for dirpath, dirnames, filenames in os.walk(source):
        rel = os.path.relpath(dirpath, source)
        target = os.path.join(dest, rel)
        os.makedirs(target, exist_ok=True)
        for name in dirnames:
            made += 1
        for name in filenames:
            if not os.path.islink(os.path.join(dirpath, name)):
                open(os.path.join(target, name), "w").close()
                made += 1
    return made


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--calls", type=int, default=55)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--cpython", default="/root/.pyenv/versions/3.11.7/lib/python3.11")
    ap.add_argument("--registry", default=os.path.expanduser("~/.cargo/registry"))
    args = ap.parse_args()

    scratch = tempfile.mkdtemp(prefix="tack-protect-cost-")
    roots, sizes = {}, {}
    for name, source, folder in [
        ("plain", None, None),
        ("cpython", args.cpython, "Lib"),
        ("registry", args.registry, "vendor"),
        ("node_modules", args.registry, "node_modules"),
        ("usr", "/usr", "usr"),
    ]:
        root = os.path.join(scratch, name)
        git_repo(root, [folder] if folder else [])
        sizes[name] = copy_shape(source, os.path.join(root, folder)) if source else 0
        roots[name] = root

    servers = {}
    logs = {}
    for which, binary in (("before", args.before), ("after", args.after)):
        for name, root in roots.items():
            key = (which, name)
            logs[key] = open(os.path.join(scratch, f"{which}-{name}.log"), "w+")
            index = os.path.join(scratch, f"{which}-{name}.index")
            servers[key] = Tack(binary, root, index, stderr=logs[key], log="tack_tools=debug,warn")

    times = {key: [] for key in servers}
    for i in range(args.warmup + args.calls):
        for key, tack in servers.items():
            _, text, is_error, seconds = tack.call("run", {"command": "true"})
            assert not is_error, text
            if i >= args.warmup:
                times[key].append(seconds * 1000)
    for tack in servers.values():
        tack.close()

    print(f"{args.calls} timed `run true` calls per server after {args.warmup} warm-up calls, alternating")
    print("| root | entries copied | before p50 | after p50 | after p95 | one look (p50) |")
    print("| --- | --- | --- | --- | --- | --- |")
    for name in roots:
        logs[("after", name)].seek(0)
        looks = [
            float(s) * 1000
            for s in re.findall(r"protected paths looked for seconds=([0-9.e-]+)", logs[("after", name)].read())
        ]
        before, after = times[("before", name)], times[("after", name)]
        look = f"{statistics.median(looks):.1f} ms" if looks else "not logged"
        print(
            f"| {name} | {sizes[name]:,} | {statistics.median(before):.2f} ms | {statistics.median(after):.2f} ms "
            f"| {pct(after, 95):.2f} ms | {look} |"
        )
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
