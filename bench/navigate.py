"""Precision, recall and latency of tack's `definition` and `references` against jedi, on the
CPython standard library. Talks to a running `tack serve` over stdio with raw JSON-RPC.

usage: navigate.py TACK ROOT INDEX_DIR [--definitions N] [--references N] [--seed S]

Samples (fixed seed, so every run asks the same questions):
  definition: N name tokens drawn from every .py file (keywords and the names right after
              `def`/`class` left out); jedi answers with Script.goto(follow_imports=True).
  references: N function, method and class definitions (from `ast`); jedi answers with
              Script.get_references().
Only answers inside ROOT count as jedi's (builtins and C modules live outside it). Precision is
over tack's answer lines, recall over jedi's, both as (path, line) pairs; "resolved" counts
tack's resolved lines only, "+candidates" counts both lists.
"""

import argparse
import ast
import io
import json
import keyword
import os
import random
import statistics
import subprocess
import sys
import time
import tokenize



from tack_rpc import Tack  # noqa: E402


def python_files(root):
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(filenames):
            if name.endswith(".py"):
                out.append(os.path.relpath(os.path.join(dirpath, name), root))
    return sorted(out)


def name_tokens(source):
    """(line, char column, name) of every NAME token that is not a keyword nor a definition's name."""
    out = []
    previous = None
    try:
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type == tokenize.NAME and not keyword.iskeyword(tok.string) and not keyword.issoftkeyword(tok.string):
                if previous not in ("def", "class"):
                    out.append((tok.start[0], tok.start[1], tok.string))
            if tok.type not in (tokenize.NL, tokenize.NEWLINE, tokenize.COMMENT):
                previous = tok.string
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return []
    return out


def definitions(source):
    """(line, char column, name) of every function, method and class name."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    lines = source.splitlines()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = lines[node.lineno - 1]
            keyword_at = text.find("class " if isinstance(node, ast.ClassDef) else "def ")
            col = text.find(node.name, keyword_at)
            if keyword_at >= 0 and col >= 0:
                out.append((node.lineno, col, node.name))
    return out


def byte_column(line_text, char_col):
    return len(line_text[:char_col].encode("utf-8")) + 1


_qualified_lines = {}


def qualified_lines(path):
    """Qualified name → first line, for the classes, functions and assigned names of a file."""
    if path not in _qualified_lines:
        table = {}
        try:
            tree = ast.parse(open(path, encoding="utf-8").read())
        except (OSError, SyntaxError, ValueError, UnicodeDecodeError):
            tree = None

        def walk(body, prefix):
            for node in body:
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    table.setdefault(prefix + node.name, node.lineno)
                    if isinstance(node, ast.ClassDef):
                        walk(node.body, prefix + node.name + ".")
                elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for target in targets:
                        if isinstance(target, ast.Name):
                            table.setdefault(prefix + target.id, node.lineno)
                elif isinstance(node, (ast.If, ast.Try)):
                    walk(node.body, prefix)
                    walk(getattr(node, "orelse", []), prefix)
                    for handler in getattr(node, "handlers", []):
                        walk(handler.body, prefix)

        if tree is not None:
            walk(tree.body, "")
        _qualified_lines[path] = table
    return _qualified_lines[path]


def jedi_places(names, root, stdlib):
    """(relative path, line) of jedi's answers inside the corpus. For the standard library jedi
    answers from typeshed's stubs; a stub answer is mapped back to the corpus's source by its
    qualified name (dropped when the source has no such name: a C module, a builtin)."""
    out = set()
    for name in names:
        path = str(name.module_path) if name.module_path else ""
        if path.endswith(".pyi") and "typeshed" in path and name.module_name and name.full_name:
            module = name.module_name
            for candidate in (module.replace(".", "/") + ".py", module.replace(".", "/") + "/__init__.py"):
                source = os.path.join(root, candidate)
                if os.path.exists(source):
                    if name.type == "module":
                        out.add((candidate, 1))
                    else:
                        rest = name.full_name[len(module) + 1 :] if name.full_name.startswith(module + ".") else ""
                        line = qualified_lines(source).get(rest)
                        if line:
                            out.add((candidate, line))
                    break
            continue
        for base in (root, stdlib):
            if path.startswith(base + os.sep):
                rel = os.path.relpath(path, base)
                if rel.endswith(".py") and not rel.startswith("site-packages"):
                    out.add((rel, name.line or 1))
                break
    return out


def tack_places(hits):
    return {(h["path"], h["line"]) for h in hits}


def percentile(samples, p):
    samples = sorted(samples)
    return samples[int(p * (len(samples) - 1))]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("tack")
    parser.add_argument("root")
    parser.add_argument("index_dir")
    parser.add_argument("--definitions", type=int, default=300)
    parser.add_argument("--references", type=int, default=200)
    parser.add_argument("--seed", type=int, default=5)
    args = parser.parse_args()
    import jedi  # here, so that the Rust driver can import this module without jedi

    root = os.path.realpath(args.root)
    stdlib = os.path.realpath(os.path.dirname(os.__file__))
    rng = random.Random(args.seed)
    project = jedi.Project(root)

    sources = {}
    tokens = []
    defs = []
    for rel in python_files(root):
        try:
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                source = f.read()
        except (UnicodeDecodeError, OSError):
            continue
        sources[rel] = source
        tokens.extend((rel, *t) for t in name_tokens(source))
        defs.extend((rel, *d) for d in definitions(source))
    def_samples = rng.sample(tokens, args.definitions)
    ref_samples = rng.sample(defs, args.references)

    tack = Tack(args.tack, root, args.index_dir, extra_args=("--profile", "full"))
    # The first call waits for the index; it is not timed.
    tack.call("definition", {"symbol": "JSONDecoder"})

    totals = {k: 0 for k in ["lines_res", "hit_res", "lines_all", "hit_all", "gold", "found_res", "found_all", "asked", "skipped"]}
    latency_def = []
    for rel, line, col, name in def_samples:
        source = sources[rel]
        line_text = source.splitlines()[line - 1]
        try:
            gold = jedi_places(jedi.Script(source, path=os.path.join(root, rel), project=project).goto(line, col, follow_imports=True), root, stdlib)
        except Exception:
            totals["skipped"] += 1
            continue
        data, text, is_error, elapsed = tack.call("definition", {"path": rel, "line": line, "column": byte_column(line_text, col)})
        latency_def.append(elapsed)
        totals["asked"] += 1
        resolved = tack_places(data["resolved"]) if data and not is_error else set()
        candidates = tack_places(data["candidates"]) if data and not is_error else set()
        both = resolved | candidates
        totals["lines_res"] += len(resolved)
        totals["hit_res"] += len(resolved & gold)
        totals["lines_all"] += len(both)
        totals["hit_all"] += len(both & gold)
        if gold:
            totals["gold"] += 1
            totals["found_res"] += bool(resolved & gold)
            totals["found_all"] += bool(both & gold)
        if os.environ.get("BENCH_VERBOSE") and (resolved - gold or (gold and not resolved & gold)):
            print(f"DEF {rel}:{line}:{col} {name} jedi={sorted(gold)} tack={sorted(resolved)} cand={len(candidates)}", file=sys.stderr)

    ref_totals = {k: 0 for k in ["res", "res_hit", "all", "all_hit", "gold", "asked", "skipped", "capped"]}
    latency_ref = []
    for rel, line, col, name in ref_samples:
        source = sources[rel]
        line_text = source.splitlines()[line - 1]
        try:
            gold = jedi_places(jedi.Script(source, path=os.path.join(root, rel), project=project).get_references(line, col), root, stdlib)
        except Exception:
            ref_totals["skipped"] += 1
            continue
        data, text, is_error, elapsed = tack.call("references", {"path": rel, "line": line, "column": byte_column(line_text, col), "limit": 500})
        latency_ref.append(elapsed)
        ref_totals["asked"] += 1
        if is_error or not data:
            resolved, candidates = set(), set()
        else:
            resolved, candidates = tack_places(data["resolved"]), tack_places(data["candidates"])
            ref_totals["capped"] += data["total_resolved"] > 500 or data["total_candidates"] > 500
        both = resolved | candidates
        ref_totals["res"] += len(resolved)
        ref_totals["res_hit"] += len(resolved & gold)
        ref_totals["all"] += len(both)
        ref_totals["all_hit"] += len(both & gold)
        ref_totals["gold"] += len(gold)
        if os.environ.get("BENCH_VERBOSE") and (resolved - gold or gold - resolved):
            print(f"REF {rel}:{line}:{col} {name} missing={sorted(gold - resolved)[:5]} extra={sorted(resolved - gold)[:5]}", file=sys.stderr)

    # The most referenced definition: every definition of the ten defined names used most
    # often is asked; the one with the most resolved references is timed.
    counts = {}
    for _, _, _, name in tokens:
        counts[name] = counts.get(name, 0) + 1
    defined = {}
    for rel, line, col, name in defs:
        defined.setdefault(name, []).append((rel, line, col))
    top = sorted(defined, key=lambda n: (-counts.get(n, 0), n))[:10]
    most = None
    for name in top:
        for rel, line, col in defined[name][:5]:
            line_text = sources[rel].splitlines()[line - 1]
            ask = {"path": rel, "line": line, "column": byte_column(line_text, col)}
            data, text, is_error, elapsed = tack.call("references", ask)
            if not is_error and (most is None or data["total_resolved"] > most[1]["total_resolved"]):
                most = (name, data, text, ask, rel, line)
    name, data, text, ask, rel, line = most
    runs = []
    for _ in range(10):
        _, text, _, elapsed = tack.call("references", ask)
        runs.append(elapsed)
    tack.close()

    def ratio(a, b):
        return f"{a / b:.3f}" if b else "n/a"

    print(f"definition: {totals['asked']} positions asked ({totals['skipped']} jedi errors skipped), {totals['gold']} with a jedi answer inside the corpus")
    print(f"  precision resolved {ratio(totals['hit_res'], totals['lines_res'])} ({totals['hit_res']}/{totals['lines_res']} lines), "
          f"+candidates {ratio(totals['hit_all'], totals['lines_all'])} ({totals['hit_all']}/{totals['lines_all']})")
    print(f"  recall resolved {ratio(totals['found_res'], totals['gold'])} ({totals['found_res']}/{totals['gold']}), "
          f"+candidates {ratio(totals['found_all'], totals['gold'])} ({totals['found_all']}/{totals['gold']})")
    print(f"  latency p50 {statistics.median(latency_def) * 1000:.1f} ms, p95 {percentile(latency_def, 0.95) * 1000:.1f} ms")
    print(f"references: {ref_totals['asked']} definitions asked ({ref_totals['skipped']} jedi errors skipped, {ref_totals['capped']} over 500 lines), {ref_totals['gold']} jedi lines")
    print(f"  precision resolved {ratio(ref_totals['res_hit'], ref_totals['res'])} ({ref_totals['res_hit']}/{ref_totals['res']}), "
          f"+candidates {ratio(ref_totals['all_hit'], ref_totals['all'])} ({ref_totals['all_hit']}/{ref_totals['all']})")
    print(f"  recall resolved {ratio(ref_totals['res_hit'], ref_totals['gold'])}, +candidates {ratio(ref_totals['all_hit'], ref_totals['gold'])}")
    print(f"  latency p50 {statistics.median(latency_ref) * 1000:.1f} ms, p95 {percentile(latency_ref, 0.95) * 1000:.1f} ms")
    print(f"most referenced: {name} ({rel}:{line}): {data['total_resolved']} resolved, {data['total_candidates']} candidates; "
          f"p50 {statistics.median(runs) * 1000:.0f} ms, max {max(runs) * 1000:.0f} ms; {len(text)} bytes of text")


if __name__ == "__main__":
    main()
