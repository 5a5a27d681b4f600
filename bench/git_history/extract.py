"""(bench/git_history: issue 15, signals from git history; see BENCHMARKS.md.)
Read git history reachable from each instance's base_commit (never the fix or later).
Window: the last 2000 commits reachable from base (git log -n 2000 base), merges contribute no files."""
import json, subprocess, time, pickle, sys
from collections import defaultdict
import os
# Where the instances (all.jsonl: every instances file concatenated), the history and results live;
# the bare mirrors; tune_search.py's features dump.
OUT = os.environ.get('GITHIST_DIR', '/tmp/githist')
MIRRORS = os.environ.get('MIRRORS', '/tmp/benchrepos')
FEATURES = os.environ.get('FEATURES', '/tmp/tune_all/features.jsonl')
N = 2000
insts = [json.loads(l) for l in open(OUT + '/all.jsonl')]
out = {}
timing = defaultdict(list)
for inst in insts:
    git = MIRRORS + '/' + inst['repo'].replace('/', '+') + '.git'
    t0 = time.time()
    base_ct = int(subprocess.check_output(['git', '--git-dir', git, 'show', '-s', '--format=%ct', inst['base_commit']]).strip())
    raw = subprocess.check_output(['git', '--git-dir', git, 'log', f'-n{N}', '--no-renames', '--name-only',
                                   '--format=%x00%H%x01%ct%x01%B%x02', inst['base_commit']]).decode('utf-8', 'replace')
    commits = []
    for chunk in raw.split('\x00')[1:]:
        head, _, files = chunk.partition('\x02')
        h, ct, msg = head.split('\x01', 2)
        commits.append((h, int(ct), msg, [f for f in files.split('\n') if f.strip()]))
    dt = time.time() - t0
    # leakage guard: the fix commit must not be in the window
    assert all(c[0] != inst['fix_commit'] for c in commits), inst['id']
    out[inst['id']] = {'base_ct': base_ct, 'commits': commits}
    timing[inst['repo']].append((dt, len(commits)))
pickle.dump(out, open(OUT + '/history.pkl', 'wb'))
json.dump(timing, open(OUT + '/timing.json', 'w'))
for r, v in sorted(timing.items()):
    print(r, 'mean %.3fs max %.3fs, commits mean %d' % (sum(a for a, _ in v) / len(v), max(a for a, _ in v), sum(b for _, b in v) / len(v)))
