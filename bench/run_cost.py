"""What one `run true` costs through `tack serve`, on roots that differ only in their hard links,
calls alternating between the servers in one run; and how long finding those links takes.

    python3 bench/run_cost.py TACK_BINARY [--calls 55] [--venv DIR] [--baseline OTHER] [--only plain]

`--baseline OTHER` also serves the `plain` root with another binary, in the same alternation, and
quotes the ratio; `--only` keeps the roots named. Each server's first `run` (a new root: tack
makes its cache layers then) is timed apart from the warm-up.

Roots (made under a scratch folder): `plain` (a git repository of a few files), `projects` (the
same with a Go module, a crate, an npm package, a Python project and a Maven project: a command
sees an overlay over each of their caches), `linked-N` (the
same plus N small files in one folder hard-linked to twins outside the root, N = 64 and 4096:
tack binds the folder read-only for each command), `mixed-4096` (the same with a file of the
root's own in that folder: 4,096 binds, one per link, the most tack makes), and `venv` (the same plus DIR, default the running
Python's standard library, copied with `cp -al` into `.venv`, as uv links its cache: every file
there has an outside twin). The walk's time is read from each server's debug log.
"""

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile

sys.path.insert(0, os.path.dirname(__file__))
from tack_rpc import Tack, pct  # noqa: E402


def git_repo(path):
    os.makedirs(path)
    with open(os.path.join(path, "main.py"), "w") as f:
        f.write("def main():\n    return 1\n")
    subprocess.run(["git", "init", "-q", path], check=True)
    subprocess.run(["git", "-C", path, "add", "."], check=True)
    subprocess.run(["git", "-C", path, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "one"], check=True)


def link_files(root, outside, n, mixed=False):
    os.makedirs(outside, exist_ok=True)
    dest = os.path.join(root, "node_modules", "pkg")
    os.makedirs(dest)
    if mixed:
        # A file of the root's own beside them: each link is bound alone.
        with open(os.path.join(dest, "own.js"), "w") as f:
            f.write("module.exports = 'own';\n")
    for i in range(n):
        twin = os.path.join(outside, f"f{i}.js")
        with open(twin, "w") as f:
            f.write(f"module.exports = {i};\n")
        os.link(twin, os.path.join(dest, f"f{i}.js"))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("binary")
    ap.add_argument("--calls", type=int, default=55)
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--venv", default=sysconfig.get_paths()["stdlib"])
    ap.add_argument("--baseline")
    ap.add_argument("--only", nargs="*")
    args = ap.parse_args()

    scratch = tempfile.mkdtemp(prefix="tack-run-cost-")
    roots = {}
    roots["plain"] = os.path.join(scratch, "plain")
    git_repo(roots["plain"])
    for n in (64, 4096):
        root = os.path.join(scratch, f"linked-{n}")
        git_repo(root)
        link_files(root, os.path.join(scratch, f"outside-{n}"), n)
        roots[f"linked-{n}"] = root
    root = os.path.join(scratch, "mixed-4096")
    git_repo(root)
    link_files(root, os.path.join(scratch, "outside-mixed"), 4096, mixed=True)
    roots["mixed-4096"] = root
    # A root whose projects use every cache tack lays an overlay over (Go, Maven, cargo, npm, pip).
    roots["projects"] = os.path.join(scratch, "projects")
    git_repo(roots["projects"])
    for name, text in [
        ("go.mod", "module example.com/p\n\ngo 1.19\n"),
        ("Cargo.toml", '[package]\nname = "p"\nversion = "0.1.0"\n'),
        ("package.json", '{"scripts": {"test": "node --test"}}\n'),
        ("pyproject.toml", "[project]\nname = 'p'\n"),
        ("java/pom.xml", "<project/>\n"),
    ]:
        os.makedirs(os.path.dirname(os.path.join(roots["projects"], name)), exist_ok=True)
        with open(os.path.join(roots["projects"], name), "w") as f:
            f.write(text)
    roots["venv"] = os.path.join(scratch, "venv")
    git_repo(roots["venv"])
    subprocess.run(["cp", "-al", args.venv, os.path.join(roots["venv"], ".venv")], check=True)
    venv_files = sum(len(files) for _, _, files in os.walk(os.path.join(roots["venv"], ".venv")))

    if args.only:
        roots = {name: root for name, root in roots.items() if name in args.only}
    binaries = {name: args.binary for name in roots}
    if args.baseline:
        roots["baseline-plain"] = roots["plain"]
        binaries["baseline-plain"] = args.baseline
    servers = {}
    logs = {}
    for name, root in roots.items():
        logs[name] = open(os.path.join(scratch, f"{name}.log"), "w+")
        index = os.path.join(scratch, f"{name}.index")
        tack = Tack(binaries[name], root, index, stderr=logs[name], log="tack_tools=debug,warn")
        servers[name] = tack

    times = {name: [] for name in servers}
    first = {}
    for i in range(args.warmup + args.calls):
        for name, tack in servers.items():
            _, text, is_error, seconds = tack.call("run", {"command": "true"})
            assert not is_error, text
            if i == 0:
                first[name] = seconds * 1000
            if i >= args.warmup:
                times[name].append(seconds * 1000)

    for name, tack in servers.items():
        tack.close()
    print(f"{args.calls} timed calls each after {args.warmup} warm-up calls, alternating; venv: {venv_files} files from {args.venv}")
    base = statistics.median(times["plain"])
    for name in servers:
        logs[name].seek(0)
        log = logs[name].read()
        walks = [float(s) for s in re.findall(r"hard links to outside the root found .*seconds=([0-9.e-]+)", log)]
        found = re.findall(r"hard links to outside the root found files=(\d+) binds=(\d+)", log)
        walk = (
            f"walk p50 {statistics.median(walks) * 1000:.1f} ms over {len(walks)} walks; {found[-1][0]} files linked, {found[-1][1]} binds"
            if walks
            else "no walk logged"
        )
        print(
            f"{name:12} p50 {statistics.median(times[name]):6.2f} ms  p95 {pct(times[name], 95):6.2f} ms"
            f"  ({statistics.median(times[name]) / base:.2f}x plain)  first {first[name]:7.2f} ms  {walk}"
        )
    shutil.rmtree(scratch, ignore_errors=True)


if __name__ == "__main__":
    main()
