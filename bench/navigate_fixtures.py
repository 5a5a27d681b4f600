"""pytest fixtures against jedi: where does a test's parameter lead?

For a sample of test functions' parameters in a pytest-using repository (the first use of each
parameter in each `test*` function under the given folder), asks tack's `definition` and jedi's
`goto` (jedi answers a use with the parameter; asked again on the parameter, its pytest plugin
answers with the fixture) and compares the definitions each names inside the repository.

  python3 -m venv VENV && VENV/bin/pip install jedi==0.20.1
  VENV/bin/python bench/navigate_fixtures.py TACK ROOT [--tests testing] [--sample 150] [--seed 7]

Prints the counts (both the same, different, tack only, jedi only, neither) and every case
where they are not the same, to read by hand."""
import argparse
import ast
import os
import random
import sys
import tempfile

import jedi

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from tack_rpc import Tack  # noqa: E402


def parameter_uses(root, folder):
    """(path, line, column, name) of the first use of each parameter of each test function."""
    uses = []
    for dirpath, _, files in os.walk(os.path.join(root, folder)):
        for name in sorted(files):
            if not name.endswith(".py"):
                continue
            path = os.path.join(dirpath, name)
            try:
                tree = ast.parse(open(path, encoding="utf-8").read())
            except (SyntaxError, UnicodeDecodeError, ValueError):
                continue
            for node in ast.walk(tree):
                if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) or not node.name.startswith("test"):
                    continue
                for arg in node.args.args:
                    if arg.arg in ("self", "cls"):
                        continue
                    use = next((n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id == arg.arg
                                and isinstance(n.ctx, ast.Load)), None)
                    if use:
                        uses.append((os.path.relpath(path, root), use.lineno, use.col_offset, arg.arg))
    return sorted(uses)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("tack")
    ap.add_argument("root")
    ap.add_argument("--tests", default="testing")
    ap.add_argument("--sample", type=int, default=150)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    project = jedi.Project(path=root, added_sys_path=[os.path.join(root, "src")])
    uses = parameter_uses(root, args.tests)
    random.Random(args.seed).shuffle(uses)
    uses = uses[: args.sample]
    counts = {"same": 0, "different": 0, "tack only": 0, "jedi only": 0, "neither": 0}
    cases = []
    with tempfile.TemporaryDirectory() as index:
        tack = Tack(args.tack, root, index)
        for path, line, column, name in uses:
            script = jedi.Script(open(os.path.join(root, path), encoding="utf-8").read(),
                                 path=os.path.join(root, path), project=project)
            found = script.goto(line, column, follow_imports=True)
            params = [d for d in found if d.type == "param" and d.line]
            if params:
                found = script.goto(params[0].line, params[0].column, follow_imports=True)
            jedi_says = {(os.path.relpath(str(d.module_path), root), d.line) for d in found
                         if d.module_path and str(d.module_path).startswith(root + os.sep) and d.type != "param"}
            data, _, _, _ = tack.call("definition", {"path": path, "line": line, "column": column + 1})
            tack_says = {(r["path"], r["line"]) for r in (data or {}).get("resolved", [])
                         if not (params and (r["path"], r["line"]) == (path, params[0].line))}
            if tack_says and jedi_says:
                kind = "same" if tack_says == jedi_says else "different"
            else:
                kind = "tack only" if tack_says else "jedi only" if jedi_says else "neither"
            counts[kind] += 1
            if kind not in ("same", "neither"):
                cases.append((kind, f"{path}:{line}", name, sorted(tack_says), sorted(jedi_says)))
        tack.close()
    print(f"{len(uses)} parameter uses: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    for case in cases:
        print(*case)


if __name__ == "__main__":
    main()
