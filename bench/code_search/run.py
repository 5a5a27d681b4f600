#!/usr/bin/env python3
"""Score tack's `search` (auto mode) and a whole-file BM25 on the hand-written code-search questions.

For every repository in the questions file: the tree at the question's commit is checked out from
its git mirror into CHECKOUTS/<owner>+<name> (reused while CHECKOUTS/<owner>+<name>.commit names
that commit); `TACK serve --structured --root CHECKOUT --index-dir TMP` is started once; each
question is sent as `search` {"query": q, "limit": 10} and the ranked files are read from
`structuredContent.results[].path`. In the same run a BM25 ranks one document per text file git
tracks at that commit (no NUL byte in the first 8 KB, at most 2 MB; symlinks and submodules
skipped): text = path + "\\n" + content, tokens from bench/mine_localization.code_tokens
(identifiers kept whole and split on snake_case / camelCase, lowercased, stop words dropped),
k1=1.2, b=0.75, Lucene's idf; the query is tokenized the same way; files with a positive score,
best first, ties by path.

Metrics, over the top 10 files: NDCG@10 with graded gains (2^grade - 1, log2 discount; the ideal
ranking is the gold sorted by grade) and Acc@1 (the first file is a gold file). Means over the
questions of each repository, each language, tack's eight languages (python, rust, go,
javascript, typescript, java, c, c++) against the others, each kind, and all. A tack error or
timeout scores 0 and is counted in the `err` column.

Examples (from the repository root):
  python3 bench/code_search/run.py
  python3 bench/code_search/run.py --repo rack/rack --only-bm25
  python3 bench/code_search/run.py --tack target/release/tack --json /tmp/code_search.json
"""
from __future__ import annotations

import argparse
import datetime
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
from mine_localization import code_tokens  # noqa: E402
from tack_rpc import Tack  # noqa: E402

TOP = 10
K1, B = 1.2, 0.75
MAX_BYTES = 2 * 1024 * 1024
SNIFF_BYTES = 8192
TACK_LANGS = {"python", "rust", "go", "javascript", "js", "typescript", "ts", "java", "c", "c++", "cpp"}


# ----------------------------------------------------------------------------- checkouts

def git(git_dir: Path, *args: str, env: dict | None = None) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True,
                          text=True, env=env).stdout


def mirror_git_dir(repo: str, mirror_root: Path) -> Path:
    """<root>/<owner>+<name>/repo (what `fetch` makes), <root>/<owner>+<name>.git or <root>/<owner>+<name>."""
    name = repo.replace("/", "+")
    for cand in (mirror_root / name / "repo", mirror_root / f"{name}.git", mirror_root / name):
        if (cand / "HEAD").exists():
            return cand
    raise FileNotFoundError(f"no git directory for {repo} under {mirror_root}")


def checkout(repo: str, commit: str, mirror_root: Path, checkouts: Path) -> Path:
    """The tree at `commit` in checkouts/<owner>+<name>, every tracked file (export-ignore is not applied)."""
    name = repo.replace("/", "+")
    dest, marker = checkouts / name, checkouts / f"{name}.commit"
    if dest.is_dir() and marker.exists() and marker.read_text().strip() == commit:
        return dest
    git_dir = mirror_git_dir(repo, mirror_root)
    shutil.rmtree(dest, ignore_errors=True)
    marker.unlink(missing_ok=True)
    dest.mkdir(parents=True)
    with tempfile.TemporaryDirectory(prefix="code-search-index-") as tmp:
        # A private index file: the mirror's own index and work tree are never touched.
        env = {**os.environ, "GIT_INDEX_FILE": str(Path(tmp) / "index")}
        git(git_dir, "--work-tree", str(dest), "read-tree", commit, env=env)
        git(git_dir, "--work-tree", str(dest), "checkout-index", "--all", "--force", env=env)
    marker.write_text(commit + "\n")
    return dest


def tracked_text_files(repo: str, commit: str, mirror_root: Path, root: Path) -> dict[str, str]:
    """path -> text of every regular file tracked at `commit` that is not binary and at most 2 MB."""
    git_dir = mirror_git_dir(repo, mirror_root)
    docs = {}
    for entry in git(git_dir, "ls-tree", "-r", "-z", commit).split("\0"):
        if not entry:
            continue
        meta, path = entry.split("\t", 1)
        mode, kind, _ = meta.split()
        if kind != "blob" or mode == "120000":
            continue
        file = root / path
        if not file.is_file() or file.stat().st_size > MAX_BYTES:
            continue
        data = file.read_bytes()
        if b"\0" in data[:SNIFF_BYTES]:
            continue
        docs[path] = data.decode("utf-8", "replace")
    return docs


# ----------------------------------------------------------------------------- BM25

class BM25:
    """Okapi BM25 over whole files, with Lucene's idf (always positive)."""

    def __init__(self, docs: dict[str, str], k1: float = K1, b: float = B):
        self.k1, self.b = k1, b
        self.paths = sorted(docs)
        self.tfs = [Counter(code_tokens(p + "\n" + docs[p])) for p in self.paths]
        self.lengths = [sum(tf.values()) for tf in self.tfs]
        self.avg_len = (sum(self.lengths) / len(self.lengths)) if self.lengths else 1.0
        df = Counter(t for tf in self.tfs for t in tf)
        n = len(self.paths)
        self.idf = {t: math.log(1 + (n - d + 0.5) / (d + 0.5)) for t, d in df.items()}

    def rank(self, query: str, top: int = TOP) -> list[str]:
        terms = [t for t in code_tokens(query) if t in self.idf]
        scored = []
        for path, tf, length in zip(self.paths, self.tfs, self.lengths):
            norm = self.k1 * (1 - self.b + self.b * length / self.avg_len)
            score = 0.0
            for t in terms:
                f = tf.get(t)
                if f:
                    score += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            if score > 0:
                scored.append((-score, path))
        scored.sort()
        return [p for _, p in scored[:top]]


# ----------------------------------------------------------------------------- tack

def normalize(path: str, root: Path) -> str:
    p = str(path).replace("\\", "/")
    prefix = str(root).rstrip("/") + "/"
    if p.startswith(prefix):
        p = p[len(prefix):]
    p = re.sub(r"(:\d+){1,2}$", "", p)
    while p.startswith("./"):
        p = p[2:]
    return p.lstrip("/")


class TackRanker:
    """One `tack serve` per repository; a call that takes longer than `timeout` kills it (a miss),
    and the next question starts a new server on the same index."""

    def __init__(self, binary: str, root: Path, timeout: float, server_log):
        self.binary, self.root, self.timeout, self.server_log = binary, root, timeout, server_log
        self.index_dir = tempfile.mkdtemp(prefix="code-search-tack-")
        self.tack = None
        self.start_seconds = 0.0

    def _call(self, tool: str, args: dict):
        timer = threading.Timer(self.timeout, self.tack.proc.kill)
        timer.start()
        try:
            return self.tack.call(tool, args)
        finally:
            timer.cancel()

    def _ensure_started(self):
        if self.tack is not None:
            return
        started = time.perf_counter()
        self.tack = Tack(self.binary, str(self.root), self.index_dir, stderr=self.server_log)
        # Build the indexes before the first timed question, as search_latency.py does.
        self._call("repo_map", {"tokens": 256})
        self._call("search", {"query": "warm up the text index", "limit": TOP})
        self.start_seconds += time.perf_counter() - started

    def rank(self, query: str) -> tuple[list[str], str | None, float]:
        started = time.perf_counter()
        try:
            self._ensure_started()
            structured, text, is_error, _ = self._call("search", {"query": query, "limit": TOP})
        except Exception as e:  # noqa: BLE001 -- a crash or timeout is a miss, never the runner's end
            self._stop()
            return [], f"{type(e).__name__}: {str(e)[:200]}", time.perf_counter() - started
        elapsed = time.perf_counter() - started
        if is_error:
            return [], "tool error: " + text[:200], elapsed
        results = (structured or {}).get("results")
        if not isinstance(results, list):
            return [], "no structuredContent.results", elapsed
        ranked = []
        for item in results:
            path = item.get("path") if isinstance(item, dict) else None
            if path:
                path = normalize(path, self.root)
                if path not in ranked:
                    ranked.append(path)
        return ranked[:TOP], None, elapsed

    def _stop(self):
        if self.tack is not None:
            try:
                self.tack.proc.kill()
                self.tack.proc.wait(timeout=30)
            except Exception:  # noqa: BLE001
                pass
            self.tack = None

    def close(self):
        if self.tack is not None:
            try:
                self.tack.close()
            except Exception:  # noqa: BLE001
                self._stop()
            self.tack = None
        shutil.rmtree(self.index_dir, ignore_errors=True)


# ----------------------------------------------------------------------------- metrics

def ndcg_at(ranked: list[str], gold: list[dict], k: int = TOP) -> float:
    grades = {g["path"]: g["grade"] for g in gold}
    dcg = sum((2 ** grades[p] - 1) / math.log2(i + 2) for i, p in enumerate(ranked[:k]) if p in grades)
    ideal = sorted(grades.values(), reverse=True)[:k]
    idcg = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(ideal))
    return dcg / idcg if idcg else 0.0


def acc_at_1(ranked: list[str], gold: list[dict]) -> float:
    return float(bool(ranked) and ranked[0] in {g["path"] for g in gold})


def mean(values) -> float:
    values = list(values)
    return sum(values) / len(values) if values else float("nan")


def summarize(rows: list[dict], systems: list[str]) -> dict:
    """Means of each metric per group of questions: repo, lang, group (tack's 8 / others), kind, all."""
    groups: dict[str, dict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for r in rows:
        groups["repo"][r["repo"]].append(r)
        groups["lang"][r["lang"]].append(r)
        groups["group"]["tack's 8 languages" if r["lang"] in TACK_LANGS else "others"].append(r)
        groups["kind"][r["kind"]].append(r)
        groups["all"]["all"].append(r)
    out = {}
    for level, by_key in groups.items():
        out[level] = {}
        for key, members in by_key.items():
            entry = {"n": len(members), "lang": members[0]["lang"]}
            for s in systems:
                entry[f"{s}_ndcg10"] = mean(m[s]["ndcg10"] for m in members)
                entry[f"{s}_acc1"] = mean(m[s]["acc1"] for m in members)
                entry[f"{s}_errors"] = sum(1 for m in members if m[s].get("error"))
            out[level][key] = entry
    return out


def print_table(summary: dict, systems: list[str]):
    has_tack = "tack" in systems

    def cells(e):
        def f(s, m):
            return f"{e[f'{s}_{m}']:.3f}" if s in systems else "-"
        return [f("tack", "ndcg10"), f("bm25", "ndcg10"), f("tack", "acc1"), f("bm25", "acc1"),
                str(e["tack_errors"]) if has_tack else "-"]

    head = "| {} | lang | n | tack NDCG@10 | BM25 NDCG@10 | tack Acc@1 | BM25 Acc@1 | err |"
    rule = "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"
    print(head.format("repository"))
    print(rule)
    for repo, e in summary["repo"].items():
        print("| " + " | ".join([f"`{repo}`", e["lang"], str(e["n"]), *cells(e)]) + " |")
    print()
    print(head.format("questions"))
    print(rule)
    order = [("group", "tack's 8 languages"), ("group", "others")]
    order += [("kind", k) for k in ("where", "design", "symbol") if k in summary["kind"]]
    order += [("all", "all")]
    for level, key in order:
        if key in summary[level]:
            e = summary[level][key]
            label = f"kind {key}" if level == "kind" else key
            print("| " + " | ".join([label, "", str(e["n"]), *cells(e)]) + " |")


# ----------------------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--questions", type=Path, default=HERE / "questions.jsonl")
    ap.add_argument("--checkouts", type=Path, default=Path("/work/cs-checkouts"),
                    help="where the trees are checked out, one folder per repository (kept between runs)")
    ap.add_argument("--mirror-root", type=Path, default=Path("/work/.mirror"),
                    help="folder of git mirrors: <owner>+<name>/repo, <owner>+<name>.git or <owner>+<name>")
    ap.add_argument("--tack", default="/work/main/target/debug/tack", help="the tack binary to run")
    ap.add_argument("--repo", action="append", default=None, help="only this owner/name (repeatable)")
    ap.add_argument("--only-bm25", action="store_true", help="do not run tack")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds allowed for one tack call")
    ap.add_argument("--server-log", type=Path, default=None, help="append tack's stderr here")
    ap.add_argument("--json", type=Path, default=None, help="write per-question rankings and the summary here")
    args = ap.parse_args()

    questions = [json.loads(line) for line in args.questions.read_text().splitlines() if line.strip()]
    if args.repo:
        questions = [q for q in questions if q["repo"] in args.repo]
        if not questions:
            sys.exit(f"no question for {args.repo}")
    systems = ["bm25"] if args.only_bm25 else ["tack", "bm25"]
    if "tack" in systems and not os.access(args.tack, os.X_OK):
        sys.exit(f"no tack binary at {args.tack} (use --tack PATH or --only-bm25)")
    args.checkouts.mkdir(parents=True, exist_ok=True)
    server_log = open(args.server_log, "a") if args.server_log else subprocess.DEVNULL

    by_repo: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for q in questions:
        by_repo[(q["repo"], q["commit"])].append(q)

    rows, repo_meta = [], {}
    for (repo, commit), qs in by_repo.items():
        started = time.perf_counter()
        root = checkout(repo, commit, args.mirror_root, args.checkouts)
        bm25 = BM25(tracked_text_files(repo, commit, args.mirror_root, root))
        meta = {"commit": commit, "checkout": str(root), "bm25_docs": len(bm25.paths)}
        tack = TackRanker(args.tack, root, args.timeout, server_log) if "tack" in systems else None
        try:
            for q in qs:
                row = {k: q[k] for k in ("repo", "commit", "lang", "kind", "query", "gold")}
                t0 = time.perf_counter()
                ranked = bm25.rank(q["query"])
                row["bm25"] = {"ranked": ranked, "seconds": round(time.perf_counter() - t0, 3)}
                if tack is not None:
                    ranked, error, secs = tack.rank(q["query"])
                    row["tack"] = {"ranked": ranked, "seconds": round(secs, 3), "error": error}
                for s in systems:
                    row[s]["ndcg10"] = ndcg_at(row[s]["ranked"], q["gold"])
                    row[s]["acc1"] = acc_at_1(row[s]["ranked"], q["gold"])
                rows.append(row)
        finally:
            if tack is not None:
                meta["tack_start_seconds"] = round(tack.start_seconds, 1)
                tack.close()
        meta["seconds"] = round(time.perf_counter() - started, 1)
        repo_meta[repo] = meta
        print(f"{repo}: {len(qs)} questions, {meta['bm25_docs']} BM25 documents, {meta['seconds']} s",
              file=sys.stderr)

    summary = summarize(rows, systems)
    print_table(summary, systems)
    if args.json:
        version = ""
        if "tack" in systems:
            version = subprocess.run([args.tack, "--version"], capture_output=True, text=True).stdout.strip()
        out = {
            "meta": {"date": datetime.date.today().isoformat(), "tack": args.tack if "tack" in systems else None,
                     "tack_version": version, "bm25": {"k1": K1, "b": B}, "top": TOP, "repos": repo_meta},
            "summary": summary,
            "questions": rows,
        }
        args.json.write_text(json.dumps(out, indent=1) + "\n")


if __name__ == "__main__":
    main()
