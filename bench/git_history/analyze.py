"""Offline test: do git-history signals (computed at base_commit only) improve tack's bug localization?
usage: python3 analyze.py   (after extract.py).  Writes results.md / per_repo.md."""
import json, math, pickle, re, sys, itertools
from collections import defaultdict, Counter
import numpy as np
import os
# Where the instances (all.jsonl: every instances file concatenated), the history and results live;
# the bare mirrors; tune_search.py's features dump.
OUT = os.environ.get('GITHIST_DIR', '/tmp/githist')
MIRRORS = os.environ.get('MIRRORS', '/tmp/benchrepos')
FEATURES = os.environ.get('FEATURES', '/tmp/tune_all/features.jsonl')

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from mine_localization import EXT  # noqa: E402  (each language's source extensions)
SHIP = {"body": 1.0, "defs": 0.25, "path_match": 0.15, "docs": 0.1, "pagerank": 0.0, "neighbors": 0.1}
GRID = [0.0, 0.05, 0.1, 0.2, 0.3, 0.5]
BIG = 50          # commits touching more than this many files are ignored for file attribution
DAY = 86400
MODE = sys.argv[1] if len(sys.argv) > 1 else 'perlang'   # acc@5 constraint: perlang | summed
EXCL_DAYS = float(sys.argv[2]) if len(sys.argv) > 2 else 0  # drop commits this close before base (PR-sibling check)

insts = [json.loads(l) for l in open(OUT + '/all.jsonl')]
H = pickle.load(open(OUT + '/history.pkl', 'rb'))
F = {r['id']: r['candidates'] for r in map(json.loads, open(FEATURES))}

STOP = set("the a an and or of to in for on with is are be this that it as by from at not no when if we was were "
           "into use used using can should would will fix fixes fixed bug issue closes close pr merge pull request "
           "branch commit add added remove removed update updated make also only which but so do does don".split())

def toks(text):
    out = []
    for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text):
        parts = re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", w) or [w]
        for p in ([w] + parts if len(parts) > 1 else [w]):
            p = p.lower()
            if len(p) > 2 and p not in STOP:
                out.append(p)
    return out

def minmax(x):
    x = np.asarray(x, float); lo, hi = x.min(), x.max()
    return (x - lo) / (hi - lo) if hi > lo else np.zeros_like(x)

def signals(inst, cands, base_score):
    h = H[inst['id']]; base_ct = h['base_ct']
    commits = [c for c in h['commits'] if c[1] <= base_ct - EXCL_DAYS * DAY]
    paths = [c['path'] for c in cands]; pset = set(paths)
    ct_min = min((c[1] for c in commits), default=base_ct)
    cnt = Counter(); last = {}; fixdecay = defaultdict(float)
    file_commits = defaultdict(list)
    FIXRE = re.compile(r"\b(fix|fixe[sd]|bug|issue|error|crash|fail\w*|regression|broken|wrong)\b|#\d+", re.I)
    for ci, (sha, ct, msg, files) in enumerate(commits):
        if not files or len(files) > BIG:
            continue
        isfix = bool(FIXRE.search(msg))
        t = (ct - ct_min) / max(1, base_ct - ct_min)          # 0 = oldest in window, 1 = base
        for f in files:
            cnt[f] += 1
            last[f] = max(last.get(f, -1), ct)
            file_commits[f].append(ci)
            if isfix:
                fixdecay[f] += 1 / (1 + math.exp(-12 * t + 12))   # Google bug-cache style
    S = {}
    S['freq'] = minmax([math.log1p(cnt[p]) for p in paths])
    S['recency'] = minmax([1 / (1 + math.log1p(max(0, base_ct - last[p]) / DAY)) if p in last else 0 for p in paths])
    S['fixdecay'] = minmax([math.log1p(10 * fixdecay[p]) for p in paths])
    # co-change: confidence P(f | seed) summed over seeds
    def cochange(seeds):
        sc = np.zeros(len(paths))
        if not seeds: return sc
        for s in seeds:
            cs = set(file_commits.get(s, []))
            if not cs: continue
            pair = Counter()
            for ci in cs:
                for f in commits[ci][3]:
                    if f != s: pair[f] += 1
            sc += np.array([pair[p] / len(cs) for p in paths])
        return minmax(sc)
    order = sorted(range(len(paths)), key=lambda k: (-base_score[k], paths[k]))
    ext = EXT[inst['language']]
    top3 = [paths[k] for k in order if paths[k].endswith(ext)][:3]
    q = inst['query']
    named = [p for p in paths if p in q or re.search(r"(?<![\w.])" + re.escape(p.rsplit('/', 1)[-1]) + r"(?![\w])", q)]
    S['cochange_top3'] = cochange(top3)
    S['cochange_query'] = cochange(named)
    S['_named'] = len(named)
    # BM25 of the query against past commit messages; file = max / sum of top-3 over its commits
    docs = [toks(c[2]) for c in commits]
    N = len(docs) or 1; avgdl = (sum(map(len, docs)) / N) or 1
    df = Counter(t for d in docs for t in set(d))
    qt = set(toks(q))
    k1, b = 1.2, 0.75
    cs = np.zeros(len(docs))
    for i, d in enumerate(docs):
        tf = Counter(d); dl = len(d)
        for t in qt & tf.keys():
            idf = math.log(1 + (N - df[t] + 0.5) / (df[t] + 0.5))
            cs[i] += idf * tf[t] * (k1 + 1) / (tf[t] + k1 * (1 - b + b * dl / avgdl))
    mx, top = [], []
    for p in paths:
        v = sorted((cs[ci] for ci in file_commits.get(p, []) if len(commits[ci][3]) <= BIG), reverse=True)
        mx.append(v[0] if v else 0); top.append(sum(v[:3]))
    S['msg_bm25_max'] = minmax(mx); S['msg_bm25_top3'] = minmax(top)
    return S

SIGS = ['freq', 'recency', 'fixdecay', 'cochange_top3', 'cochange_query', 'msg_bm25_max', 'msg_bm25_top3']
rows = []   # per instance: dict sig -> (hit1[w], hit5[w])
named_count = 0
for inst in insts:
    cands = sorted(F.get(inst['id'], []), key=lambda c: c['path'])
    base = np.array([sum(SHIP[f] * c[f] for f in SHIP) - (1.0 if c['is_test'] else 0.0) for c in cands])
    S = signals(inst, cands, base) if cands else {}
    named_count += bool(S.get('_named'))
    keep = [k for k, c in enumerate(cands) if c['path'].endswith(EXT[inst['language']])]
    gold = [j for j, k in enumerate(keep) if cands[k]['path'] in inst['gold_files']]
    r = {}
    for s in SIGS + ['ALL']:
        h1 = np.zeros(len(GRID), bool); h5 = np.zeros(len(GRID), bool)
        if gold:
            for gi, w in enumerate(GRID):
                if s == 'ALL': continue
                sc = (base + w * S[s])[keep]
                best = min((sc > sc[k]).sum() + (sc[:k] == sc[k]).sum() for k in gold)
                h1[gi], h5[gi] = best < 1, best < 5
        r[s] = (h1, h5)
    # combination: joint grid over four signals
    if gold:
        combo = {}
        for ws in itertools.product([0, 0.1, 0.2, 0.3], repeat=4):
            sc = (base + ws[0] * S['freq'] + ws[1] * S['recency'] + ws[2] * S['cochange_top3'] + ws[3] * S['msg_bm25_max'])[keep]
            best = min((sc > sc[k]).sum() + (sc[:k] == sc[k]).sum() for k in gold)
            combo[ws] = (best < 1, best < 5)
        r['COMBO'] = combo
    rows.append(r)

repos = sorted({i['repo'] for i in insts}); LANGS = ['rust', 'python', 'typescript', 'javascript', 'go', 'java']
idx_repo = {rp: [i for i, x in enumerate(insts) if x['repo'] == rp] for rp in repos}
lang_of = {rp: insts[idx_repo[rp][0]]['language'] for rp in repos}

def arr(sig, ix, grid_n):
    h1 = np.array([rows[i][sig][0] for i in ix]); h5 = np.array([rows[i][sig][1] for i in ix]); return h1, h5

def tune(sig, train_repos, n):
    """best summed per-language acc@1; constraint: acc@5 no worse than w=0 in EVERY training language
    (MODE=perlang) or in the SUM over training languages (MODE=summed). Ties -> smallest w."""
    bylang = defaultdict(list)
    for rp in train_repos: bylang[lang_of[rp]] += idx_repo[rp]
    a1 = np.zeros(n); ok = np.ones(n, bool); s5 = np.zeros(n)
    for ix in bylang.values():
        h1, h5 = arr(sig, ix, n); a1 += h1.mean(0); a5 = h5.mean(0); ok &= a5 >= a5[0] - 1e-9; s5 += a5
    if MODE == 'summed': ok = s5 >= s5[0] - 1e-9
    return int(np.argmax(np.where(ok, a1, -1)))

out = []
P = lambda *a: out.append(' '.join(str(x) for x in a))
P(f"instances: {len(insts)}; instances where the query names a candidate file: {named_count}")
P("\n## LOO (w chosen on other 9 repos). cells: acc@1/acc@5 with-signal (baseline w=0)\n")
P(f"constraint mode: {MODE}")
P("| signal | " + " | ".join(LANGS) + " | overall | acc@1 won/lost vs w=0 | w chosen per repo |"); P("|" + "---|" * (len(LANGS) + 4))
for sig in SIGS:
    held1 = np.zeros(len(insts), bool); held5 = np.zeros(len(insts), bool); chosen = {}
    for rp in repos:
        g = tune(sig, [x for x in repos if x != rp], len(GRID)); chosen[rp] = GRID[g]
        for i in idx_repo[rp]: held1[i], held5[i] = rows[i][sig][0][g], rows[i][sig][1][g]
    cells = []
    for L in LANGS + ['all']:
        ix = [i for i, x in enumerate(insts) if L == 'all' or x['language'] == L]
        b1 = np.mean([rows[i][sig][0][0] for i in ix]); b5 = np.mean([rows[i][sig][1][0] for i in ix])
        cells.append(f"{held1[ix].mean():.3f}/{held5[ix].mean():.3f} ({b1:.3f}/{b5:.3f})")
    b1all = np.array([rows[i][sig][0][0] for i in range(len(insts))])
    cells.append(f"+{int((held1 & ~b1all).sum())}/-{int((~held1 & b1all).sum())}")
    P(f"| {sig} | " + " | ".join(cells) + " | " + ", ".join(f"{rp.split('/')[1]}={w:g}" for rp, w in chosen.items()) + " |")
# combo LOO
keys = list(rows[0]['COMBO'].keys()) if 'COMBO' in rows[0] else None
keys = next(list(r['COMBO'].keys()) for r in rows if 'COMBO' in r)
for r in rows:
    if 'COMBO' not in r: r['COMBO'] = {k: (False, False) for k in keys}
    r['COMBOARR'] = (np.array([r['COMBO'][k][0] for k in keys]), np.array([r['COMBO'][k][1] for k in keys]))
held1 = np.zeros(len(insts), bool); held5 = np.zeros(len(insts), bool); chosen = {}
for rp in repos:
    g = tune('COMBOARR', [x for x in repos if x != rp], len(keys)); chosen[rp] = keys[g]
    for i in idx_repo[rp]: held1[i], held5[i] = rows[i]['COMBOARR'][0][g], rows[i]['COMBOARR'][1][g]
cells = []
for L in LANGS + ['all']:
    ix = [i for i, x in enumerate(insts) if L == 'all' or x['language'] == L]
    cells.append(f"{held1[ix].mean():.3f}/{held5[ix].mean():.3f}")
b1all = np.array([rows[i]['freq'][0][0] for i in range(len(insts))])
cells.append(f"+{int((held1 & ~b1all).sum())}/-{int((~held1 & b1all).sum())}")
P("| COMBO(freq,recency,cochange_top3,msg_bm25_max; grid 0..0.3) | " + " | ".join(cells) + " | " +
  ", ".join(f"{rp.split('/')[1]}={w}" for rp, w in chosen.items()) + " |")
open(f'{OUT}/results_{MODE}_excl{EXCL_DAYS:g}.md', 'w').write('\n'.join(out) + '\n'); print('\n'.join(out))

# in-sample per repo, per w
o2 = ["# in-sample acc@1/acc@5 per repository per w (grid " + str(GRID) + ")"]
for sig in SIGS:
    o2.append(f"\n## {sig}\n| repo | " + " | ".join(f"w={w:g}" for w in GRID) + " |")
    for rp in repos:
        h1, h5 = arr(sig, idx_repo[rp], len(GRID))
        o2.append(f"| {rp} | " + " | ".join(f"{a:.2f}/{b:.2f}" for a, b in zip(h1.mean(0), h5.mean(0))) + " |")
open(f'{OUT}/per_repo_excl{EXCL_DAYS:g}.md', 'w').write('\n'.join(o2) + '\n')
