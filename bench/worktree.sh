#!/usr/bin/env bash
# A second git worktree opened from the first one's saved index, against a cold index, in one
# run: `tack index` (symbols, graph, search index, saved) on a fresh copy of a corpus made a git
# repository, then on `git worktree add` of it, then on that worktree again with the first
# one's index out of reach (cold). Release build.
#
# usage: bash bench/worktree.sh [TACK] [CORPUS]   (default: the installed CPython's standard library)
set -euo pipefail
TACK=$(realpath "${1:-target/release/tack}")
CORPUS=${2:-$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
python3 -c 'import shutil, sys; shutil.copytree(sys.argv[1], sys.argv[2], symlinks=True,
    ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"))' "$CORPUS" "$WORK/main"
git -C "$WORK/main" init -q
git -C "$WORK/main" add -A
git -C "$WORK/main" -c user.name=bench -c user.email=bench@localhost commit -q -m corpus
git -C "$WORK/main" worktree add -q "$WORK/second"
# One file differs in the second worktree, as when an agent has started work there.
first=$(git -C "$WORK/second" ls-files '*.py' | awk 'NR == 1')
echo "def added_in_second():  # bench" >> "$WORK/second/$first"

index() { # ROOT STORE -> seconds, and tack's summary on stderr
  local started ended
  started=$(date +%s.%N)
  "$TACK" index --root "$1" --index-dir "$2" >&2
  ended=$(date +%s.%N)
  printf '%.2f' "$(echo "$ended - $started" | bc)"
}
echo "corpus: $(git -C "$WORK/main" ls-files '*.py' | wc -l) Python files"
cold_main=$(index "$WORK/main" "$WORK/cache/main")
seeded=$(TACK_LOG=info index "$WORK/second" "$WORK/cache/second")
mv "$WORK/cache/main" "$WORK/elsewhere"
rm -rf "$WORK/cache/second"
cold_second=$(index "$WORK/second" "$WORK/cache/second")
echo "| open | seconds | against the cold index of the same worktree |"
echo "| --- | --- | --- |"
echo "| first worktree, cold | $cold_main | |"
echo "| second worktree, cold | $cold_second | 1.00 |"
echo "| second worktree, from the first's index | $seeded | $(printf '%.2f' "$(echo "scale=4; $seeded / $cold_second" | bc)") |"
