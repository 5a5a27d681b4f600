#!/usr/bin/env python3
"""BM25 baselines for the localization benchmark (same method as /work/shared/bench/baselines).

files mode (rankings_bm25*.jsonl): one document per indexable file of the parent tree (every file
with the language's extension, tests included), text = path + "\\n" + content, tokenized with the
benchmark's code_tokens() (identifiers kept whole and split on snake_case / camelCase, lowercased,
stop words dropped); bm25s.BM25(k1=1.5, b=0.75) (method "lucene"); query = code_tokens(message);
files with a positive score, best first (ties by path), top 20. On the development set this
reproduces baselines/rankings_bm25.jsonl exactly (sharkdp/fd 25/25 and pallets/click 30/30
identical rankings; check with --compare).

functions mode (rankings_bm25_functions*.jsonl): one document per function/method found by
mine_localization.definitions() (regex definitions, see that module), text = path + qualified name +
the function's lines; ranked_functions = top 20 "path::Qualified.name"; ranked = files in order of
first appearance over all positively scored functions, top 20. This is our re-implementation; it
does not reproduce the development set's function baseline exactly (different extractor).

Output lines: {"id", "ranked", "seconds", "error", "n_files"} (files) or
{"id", "ranked", "ranked_functions", "seconds", "error"} (functions), as in the existing baselines.

Usage:
  python bm25_baseline.py --instances spf13+cobra.jsonl --mirror-root /work/.mirror \\
      --out baselines/rankings_bm25_spf13+cobra.jsonl [--mode functions]
  python bm25_baseline.py --instances /work/shared/bench/data/instances.jsonl --repo sharkdp/fd \\
      --mirror-root /work/.mirror --out /tmp/fd.jsonl --compare /work/shared/bench/baselines/rankings_bm25.jsonl
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import bm25s

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from mine_localization import code_tokens, definitions, git, is_indexable  # noqa: E402

TOP = 20


def git_dir(repo: str, mirror_root: Path) -> Path:
    """<root>/<owner>+<name>.git (the bench's repos/ layout) or <root>/<owner>+<name>/repo (fetch)."""
    name = repo.replace("/", "+")
    for cand in (mirror_root / f"{name}.git", mirror_root / name / "repo", mirror_root / name):
        if cand.exists():
            return cand
    raise FileNotFoundError(f"no git directory for {repo} under {mirror_root}")


def list_tree(gitdir: Path, commit: str) -> list[tuple[str, str]]:
    out = git(gitdir, "ls-tree", "-r", "-z", commit).decode("utf-8", "replace")
    res = []
    for ent in out.split("\0"):
        if ent:
            meta, path = ent.split("\t", 1)
            _, typ, sha = meta.split()
            if typ == "blob":
                res.append((path, sha))
    return res


def read_blobs(gitdir: Path, shas: list[str]) -> list[bytes]:
    if not shas:
        return []
    out = git(gitdir, "cat-file", "--batch", input=("\n".join(shas) + "\n").encode())
    res, i = [], 0
    for _ in shas:
        nl = out.index(b"\n", i)
        size = int(out[i:nl].split()[2])
        res.append(out[nl + 1:nl + 1 + size])
        i = nl + 1 + size + 1
    return res


class Corpus:
    """Per-repository caches keyed by blob sha (trees of nearby commits share most blobs)."""

    def __init__(self, gitdir: Path, lang: str):
        self.gitdir, self.lang = gitdir, lang
        self.text: dict[str, str] = {}
        self.file_tokens: dict[tuple[str, str], list[str]] = {}
        self.funcs: dict[tuple[str, str], list[tuple[str, list[str]]]] = {}

    def tree(self, commit: str) -> list[tuple[str, str]]:
        tree = [(p, s) for p, s in list_tree(self.gitdir, commit) if is_indexable(p, self.lang)]
        missing = sorted({s for _, s in tree if s not in self.text})
        for s, b in zip(missing, read_blobs(self.gitdir, missing)):
            self.text[s] = b.decode("utf-8", "replace")
        return tree

    def tokens(self, path: str, sha: str) -> list[str]:
        key = (path, sha)
        if key not in self.file_tokens:
            self.file_tokens[key] = code_tokens(path + "\n" + self.text[sha])
        return self.file_tokens[key]

    def functions(self, path: str, sha: str) -> list[tuple[str, list[str]]]:
        key = (path, sha)
        if key not in self.funcs:
            text = self.text[sha]
            lines = text.split("\n")
            res = []
            for a, b, qual, kind in definitions(text, self.lang):
                if kind != "fn":
                    continue
                body = "\n".join(lines[a - 1:b])
                res.append((f"{path}::{qual}", code_tokens(path + "\n" + qual + "\n" + body)))
            self.funcs[key] = res
        return self.funcs[key]


def bm25_scores(docs: list[list[str]], query: list[str]):
    ret = bm25s.BM25(k1=1.5, b=0.75)
    ret.index(docs, show_progress=False)
    return ret.get_scores(query)


def rank_files(corpus: Corpus, inst: dict) -> dict:
    tree = corpus.tree(inst["base_commit"])
    paths = [p for p, _ in tree]
    docs = [corpus.tokens(p, s) for p, s in tree]
    sc = bm25_scores(docs, code_tokens(inst["query"]))
    order = sorted(range(len(paths)), key=lambda k: (-sc[k], paths[k]))
    ranked = [paths[k] for k in order if sc[k] > 0][:TOP]
    return {"ranked": ranked, "n_files": len(paths)}


def rank_functions(corpus: Corpus, inst: dict) -> dict:
    tree = corpus.tree(inst["base_commit"])
    names, docs = [], []
    for p, s in tree:
        for name, toks in corpus.functions(p, s):
            names.append(name)
            docs.append(toks)
    if not docs:
        return {"ranked": [], "ranked_functions": []}
    sc = bm25_scores(docs, code_tokens(inst["query"]))
    order = [k for k in sorted(range(len(names)), key=lambda k: (-sc[k], names[k])) if sc[k] > 0]
    files = list(dict.fromkeys(names[k].split("::", 1)[0] for k in order))
    return {"ranked": files[:TOP], "ranked_functions": [names[k] for k in order[:TOP]]}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--instances", type=Path, required=True, nargs="+")
    ap.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"))
    ap.add_argument("--repo", action="append", default=None, help="only this repo (owner/name); repeatable")
    ap.add_argument("--mode", choices=["files", "functions"], default="files")
    ap.add_argument("--out", type=Path, required=True)
    ap.add_argument("--compare", type=Path, default=None, help="existing rankings to compare with (same ids)")
    args = ap.parse_args()

    insts = []
    for f in args.instances:
        with open(f) as fh:
            insts += [json.loads(line) for line in fh if line.strip()]
    if args.repo:
        insts = [i for i in insts if i["repo"] in args.repo]
    corpora: dict[str, Corpus] = {}
    args.out.parent.mkdir(parents=True, exist_ok=True)
    results = []
    with open(args.out, "w") as fo:
        for inst in insts:
            t0 = time.perf_counter()
            if inst["repo"] not in corpora:
                corpora = {inst["repo"]: Corpus(git_dir(inst["repo"], args.mirror_root), inst["language"])}
            corpus = corpora[inst["repo"]]
            try:
                r = rank_files(corpus, inst) if args.mode == "files" else rank_functions(corpus, inst)
                err = None
            except Exception as e:  # noqa: BLE001
                r, err = {"ranked": []}, f"{type(e).__name__}: {e}"
            row = {"id": inst["id"], "ranked": r["ranked"]}
            if args.mode == "functions":
                row["ranked_functions"] = r.get("ranked_functions", [])
            row["seconds"] = round(time.perf_counter() - t0, 3)
            row["error"] = err
            if args.mode == "files":
                row["n_files"] = r.get("n_files", 0)
            fo.write(json.dumps(row) + "\n")
            fo.flush()
            results.append(row)
            gold = set(inst["gold_files"])
            rank = next((k for k, p in enumerate(row["ranked"], 1) if p in gold), None)
            print(f"{inst['id']} first-gold-rank={rank} {row['seconds']:.2f}s" + (f" ERROR {err}" if err else ""),
                  file=sys.stderr, flush=True)
    if args.compare:
        with open(args.compare) as fh:
            ref = {r["id"]: r for r in map(json.loads, fh)}
        by_id = {i["id"]: i for i in insts}
        same = sum(r["ranked"] == ref.get(r["id"], {}).get("ranked") for r in results)

        def acc1(rows):
            return sum(bool(rw["ranked"]) and rw["ranked"][0] in by_id[rw["id"]]["gold_files"] for rw in rows) / len(rows)

        refrows = [ref[r["id"]] for r in results if r["id"] in ref]
        print(f"compare: {same}/{len(results)} identical rankings; acc@1 ours {acc1(results):.3f} "
              f"reference {acc1(refrows):.3f}", file=sys.stderr)


if __name__ == "__main__":
    main()
