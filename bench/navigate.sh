#!/usr/bin/env bash
# The navigation benchmark: precision, recall and latency of `definition` and `references`
# against jedi on the installed CPython standard library (site-packages excluded), through the
# release `tack serve`. Creates its own venv with jedi (from PyPI) under the target directory.
# usage: bench/navigate.sh [--definitions N] [--references N] [--seed S]   (~15 minutes)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release -q -p tack --bin tack
VENV=$TARGET/bench-venv
[ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
"$VENV/bin/python" -c "import jedi" 2>/dev/null || "$VENV/bin/pip" install -q "jedi==0.20.1"
WORK=${TMPDIR:-/tmp}/tack-bench-navigate
rm -rf "$WORK" && mkdir -p "$WORK"
STDLIB=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['stdlib'])")
python3 - "$STDLIB" "$WORK/cpython" <<'PY'
import shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst, ignore=lambda d, names: [n for n in names if n in ("site-packages", "__pycache__") or (not n.endswith(".py") and "." in n)])
PY
"$VENV/bin/python" bench/navigate.py "$TARGET/release/tack" "$WORK/cpython" "$WORK/index" "$@"
