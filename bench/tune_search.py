"""Choose the search ranking weights on the localization development data, and measure what the
choice is worth on repositories it never saw.

Extracts every instance's tree from the fetched mirrors, dumps each candidate file's ranking
features with the `loc_features` example, then scores a grid of weights. The headline is leave
one repository out: for each repository, the weights are chosen on all the others (best Acc@1
keeping each language's Acc@5 at or above BM25's) and scored on it, so no repository is scored by
weights tuned on it. Then the weights chosen on everything, which are the ones to ship.

usage: /tmp/benchvenv/bin/python bench/tune_search.py --mirror-root DIR [--work DIR] [--reuse]
           [INSTANCES.jsonl ...]
    (numpy is needed: the benchmark's venv has it. Without INSTANCES: ../shared/bench's
    development set and every repository in bench/localization. BM25 figures come from the
    baselines beside each instances file. About two minutes for the 290 instances.)
"""

import argparse
import itertools
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
SHARED = HERE.parent.parent / "shared" / "bench"
sys.path.insert(0, str(SHARED / "scripts"))
sys.path.insert(0, str(HERE))
from common import materialize, mirror_path  # noqa: E402
from mine_localization import EXT  # noqa: E402  (each language's source extensions)

FEATURES = ["body", "defs", "path_match", "docs", "pagerank", "neighbors", "named"]
GRID = {
    "body": [1.0],
    "defs": [0.0, 0.15, 0.25, 0.5, 0.75, 1.0],
    "path_match": [0.0, 0.15, 0.3, 0.5, 0.75, 1.0],
    "docs": [0.0, 0.1, 0.2],
    "pagerank": [0.0, 0.05, 0.1, 0.2],
    "neighbors": [0.0, 0.05, 0.1, 0.2],
    "named": [0.0, 0.25, 0.5, 0.75, 1.0],
}
PENALTIES = (0.0, 0.3, 1.0)
SHIPPED = ({"body": 1.0, "defs": 0.25, "path_match": 0.3, "docs": 0.1, "pagerank": 0.0, "neighbors": 0.1, "named": 0.5},
           1.0)


def load(path: Path) -> list[dict]:
    return [json.loads(line) for line in open(path) if line.strip()]


def bm25_rankings(instances_file: Path) -> dict[str, list[str]]:
    """The shipped BM25-over-files rankings for an instances file, by instance id."""
    here = instances_file.parent
    candidates = [here.parent / "baselines" / "rankings_bm25.jsonl",
                  here / "baselines" / f"rankings_bm25_{instances_file.stem}.jsonl"]
    for path in candidates:
        if path.exists():
            return {r["id"]: r["ranked"] for r in load(path)}
    return {}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("instances", nargs="*", type=Path)
    ap.add_argument("--mirror-root", type=Path, required=True)
    ap.add_argument("--work", type=Path, default=Path("/tmp/tune_search"))
    ap.add_argument("--reuse", action="store_true", help="reuse the features dumped by the last run")
    args = ap.parse_args()
    files = args.instances or [SHARED / "data" / "instances.jsonl",
                               *sorted((HERE / "localization").glob("*.jsonl"))]
    instances, bm25 = [], {}
    for f in files:
        instances += load(f)
        bm25.update(bm25_rankings(f))

    args.work.mkdir(parents=True, exist_ok=True)
    cache = args.work / "features.jsonl"
    if not args.reuse or not cache.exists():
        jobs = []
        for inst in instances:
            dest = args.work / "checkouts" / inst["id"]
            materialize(mirror_path(inst["repo"], args.mirror_root), inst["base_commit"], dest)
            jobs.append(json.dumps({"id": inst["id"], "root": str(dest), "query": inst["query"]}))
        subprocess.run(["cargo", "build", "--release", "-q", "-p", "tack-indexer", "--example", "loc_features"],
                       check=True, cwd=HERE.parent)
        exe = HERE.parent / "target" / "release" / "examples" / "loc_features"
        with open(cache, "w") as out:
            subprocess.run([str(exe)], input="\n".join(jobs) + "\n", stdout=out, text=True, check=True)
    rows = {r["id"]: r["candidates"] for r in map(json.loads, cache.read_text().splitlines())}

    points = [(dict(zip(GRID, values)), tp) for values in itertools.product(*GRID.values()) for tp in PENALTIES]
    if SHIPPED not in points:
        points.append(SHIPPED)
    weights = np.array([[w[f] for f in FEATURES] for w, _ in points])  # G x F
    penalties = np.array([tp for _, tp in points])
    # Each instance's best gold rank under every grid point: hit1[i, g], hit5[i, g].
    hit1 = np.zeros((len(instances), len(points)), dtype=bool)
    hit5 = np.zeros_like(hit1)
    for i, inst in enumerate(instances):
        cands = sorted((c for c in rows.get(inst["id"], []) if c["path"].endswith(EXT[inst["language"]])),
                       key=lambda c: c["path"])  # the path breaks ties, as in the search
        gold = [k for k, c in enumerate(cands) if c["path"] in inst["gold_files"]]
        if not gold:
            continue
        x = np.array([[c[f] for f in FEATURES] for c in cands])
        scores = x @ weights.T - np.array([c["is_test"] for c in cands], dtype=float)[:, None] * penalties
        best = np.full(len(points), len(cands))
        for k in gold:
            above = (scores > scores[k]).sum(axis=0) + (scores[:k] == scores[k]).sum(axis=0)
            best = np.minimum(best, above)
        hit1[i], hit5[i] = best < 1, best < 5

    def bm25_hits(subset):
        one = [bool(set(bm25.get(instances[i]["id"], [])[:1]) & set(instances[i]["gold_files"])) for i in subset]
        five = [bool(set(bm25.get(instances[i]["id"], [])[:5]) & set(instances[i]["gold_files"])) for i in subset]
        return np.mean(one), np.mean(five)

    by_lang = defaultdict(list)
    by_repo = defaultdict(list)
    for i, inst in enumerate(instances):
        by_lang[inst["language"]].append(i)
        by_repo[inst["repo"]].append(i)

    def tune(train):
        """The grid point with the best summed Acc@1 over the languages of `train`, among those
        keeping every language's Acc@5 at or above BM25's there (or the best Acc@5 if none does)."""
        langs = defaultdict(list)
        for i in train:
            langs[instances[i]["language"]].append(i)
        a1 = sum(hit1[ix].mean(axis=0) for ix in langs.values())
        ok = np.ones(len(points), dtype=bool)
        a5 = np.zeros(len(points))
        for ix in langs.values():
            ok &= hit5[ix].mean(axis=0) >= bm25_hits(ix)[1] - 1e-9
            a5 += hit5[ix].mean(axis=0)
        # Requiring Acc@1 0.10 over BM25 in every training language as well was tried: it
        # chose weights that did worse on the repository left out (Rust 0.512 against 0.588).
        key = np.where(ok, 10.0, 0.0) + a1 + a5 * 1e-3
        return int(np.argmax(key))  # the first best point: the grid's order breaks ties

    def show(w, tp):
        return " ".join(f"{f}={w[f]:g}" for f in FEATURES) + f" test_penalty={tp:g}"

    print("## Leave one repository out (weights chosen on the other repositories)\n")
    print("| repository | language | n | tack acc@1 / acc@5 | BM25 acc@1 / acc@5 | weights chosen without it |")
    print("| --- | --- | ---: | --- | --- | --- |")
    held_hit1 = np.zeros(len(instances), dtype=bool)
    held_hit5 = np.zeros(len(instances), dtype=bool)
    for repo in sorted(by_repo):
        held = by_repo[repo]
        left_out = set(held)
        g = tune([i for i in range(len(instances)) if i not in left_out])
        held_hit1[held], held_hit5[held] = hit1[held, g], hit5[held, g]
        b1, b5 = bm25_hits(held)
        print(f"| {repo} | {instances[held[0]]['language']} | {len(held)} | {hit1[held, g].mean():.3f} / "
              f"{hit5[held, g].mean():.3f} | {b1:.3f} / {b5:.3f} | {show(*points[g])} |")
    print("\n| language | n | tack acc@1 / acc@5, left out | BM25 acc@1 / acc@5 | acc@1 over BM25 |")
    print("| --- | ---: | --- | --- | --- |")
    for lang, ix in sorted(by_lang.items()):
        b1, b5 = bm25_hits(ix)
        a1, a5 = held_hit1[ix].mean(), held_hit5[ix].mean()
        print(f"| {lang} | {len(ix)} | {a1:.3f} / {a5:.3f} | {b1:.3f} / {b5:.3f} | {a1 - b1:+.3f} |")

    g = tune(list(range(len(instances))))
    s = points.index(SHIPPED)
    print("\n## Weights chosen on everything, and the shipped weights, on everything (in-sample)\n")
    print("| weights | " + " | ".join(f"{lang} acc@1 / acc@5" for lang in sorted(by_lang)) + " |")
    print("| --- | " + " | ".join("---" for _ in by_lang) + " |")
    for label, p in (("chosen: " + show(*points[g]), g), ("shipped: " + show(*SHIPPED), s)):
        cells = [f"{hit1[ix, p].mean():.3f} / {hit5[ix, p].mean():.3f}" for _, ix in sorted(by_lang.items())]
        print(f"| {label} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
