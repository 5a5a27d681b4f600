#!/usr/bin/env bash
# The indexing benchmark: cold index, warm reopen and the parse-only floor (same run, same thread
# count), then repo_map latency and write-to-map time through the real server, on two corpora:
#   cpython: the .py files of the installed CPython standard library (site-packages excluded)
#   rust:    the .rs files of seven crates from the cargo registry cache, at the versions pinned
#            by tack's Cargo.lock (tokio, rmcp, syn, regex-automata, clap_builder, hyper, serde)
#   go:      the .go files of the Go standard library from Debian's golang-src (GO_SRC=DIR for
#            another; skipped when absent: `apt-get install golang-src`)
#   java:    the .java files of the JDK's java.base module, from Debian's openjdk-17-source
#            (JAVA_SRC=ZIP for another src.zip; skipped when absent: `apt-get install
#            openjdk-17-source`)
#   ts:      the TypeScript sources of the npm package effect 4.1.0 (`src/`, 572 files)
#   ts-npm:  the npm package typescript 5.9.3 (its `.d.ts` files; the two bundled compilers are
#            over the 2 MB parse limit)
#   js:      the npm package webpack 5.113.0 (885 `.js` files)
#   c:       the C sources of zstd 1.5.7 as the zstd-sys crate 2.1.3 carries them
#            (bench/zstd_src.sh fetches it into the cargo registry cache when missing)
#   cpp:     the `.h` headers of Debian's libstdc++ (`/usr/include/c++/*`, read as C++)
#            (the npm corpora are fetched with `npm pack`; each is skipped when it cannot be had)
# usage: bench/index.sh            (prints a markdown table; ~2 minutes after the release build)
#        REPS=9 bench/index.sh     (floor and cold index alternate REPS times, default 5; medians)
#        CORPORA=go bench/index.sh (some of the corpora)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -q -p tack --bin tack
cargo build --release -q -p tack-indexer --example parse_floor
TACK=$PWD/target/release/tack
FLOOR=$PWD/target/release/examples/parse_floor
WORK=${TMPDIR:-/tmp}/tack-bench
REPS=${REPS:-5}
rm -rf "$WORK" && mkdir -p "$WORK"

STDLIB=$(python3 -c "import sysconfig; print(sysconfig.get_paths()['stdlib'])")
python3 - "$STDLIB" "$WORK/cpython" <<'PY'
import shutil, sys
src, dst = sys.argv[1], sys.argv[2]
shutil.copytree(src, dst, ignore=lambda d, names: [n for n in names if n in ("site-packages", "__pycache__") or (not n.endswith(".py") and "." in n)])
PY
REGISTRY=$(ls -d "$HOME"/.cargo/registry/src/*/ | head -1)
mkdir -p "$WORK/rust"
for crate in $(python3 - <<'PY'
import re
lock = open("Cargo.lock").read()
want = ["tokio", "rmcp", "syn", "regex-automata", "clap_builder", "hyper", "serde"]
for name in want:
    versions = re.findall(r'name = "%s"\nversion = "([^"]+)"' % re.escape(name), lock)
    print(f"{name}-{max(versions)}")
PY
); do
  cp -r "$REGISTRY/$crate" "$WORK/rust/"
done

GO_SRC=${GO_SRC:-$(ls -d /usr/share/go-*/src 2>/dev/null | tail -1 || true)}
ALL="cpython rust"
if [ -n "$GO_SRC" ] && [ -d "$GO_SRC" ]; then
  mkdir -p "$WORK/go" && (cd "$GO_SRC" && find . -name '*.go' -type f -exec cp --parents -t "$WORK/go" {} +)
  ALL="$ALL go"
fi
JAVA_SRC=${JAVA_SRC:-/usr/lib/jvm/openjdk-17/lib/src.zip}
if [ -f "$JAVA_SRC" ]; then
  mkdir -p "$WORK/java" && python3 - "$JAVA_SRC" "$WORK/java" <<'PY'
import sys, zipfile
with zipfile.ZipFile(sys.argv[1]) as z:
    z.extractall(sys.argv[2], [n for n in z.namelist() if n.startswith("java.base/") and n.endswith(".java")])
PY
  ALL="$ALL java"
fi
npm_corpus() { # name, package@version, folder inside the package to index
  local dir="$WORK/npm-$1"
  mkdir -p "$dir" && (cd "$dir" && npm pack -q "$2" >/dev/null 2>&1 && tar xzf ./*.tgz) || return 1
  local src="$dir/package"
  [ "$3" = . ] || src="$src/$3"
  mv "$src" "$WORK/$1" && rm -rf "$dir"
}
if command -v npm >/dev/null; then
  npm_corpus ts effect@4.1.0 src && ALL="$ALL ts"
  npm_corpus ts-npm typescript@5.9.3 . && ALL="$ALL ts-npm"
  npm_corpus js webpack@5.113.0 . && ALL="$ALL js"
fi
ZSTD=$(bash bench/zstd_src.sh)
if [ -n "$ZSTD" ]; then
  mkdir -p "$WORK/c" && (cd "$ZSTD" && find . \( -name '*.c' -o -name '*.h' \) -type f -exec cp --parents -t "$WORK/c" {} +)
  ALL="$ALL c"
fi
CXX=$(ls -d /usr/include/c++/[0-9]* 2>/dev/null | tail -1 || true)
if [ -n "$CXX" ]; then
  mkdir -p "$WORK/cpp" && (cd "$CXX" && find . -name '*.h' -type f -exec cp --parents -t "$WORK/cpp" {} +)
  ALL="$ALL cpp"
fi
CORPORA=${CORPORA:-$ALL}

measure() { # label, command...: prints "label wall_s cpu_s peak_rss_mb" and the command's output
  # Wall time from the clock in microseconds: time's own is in hundredths, 8% of a 0.13 s floor.
  local label=$1; shift
  local out start end
  start=$(date +%s%N)
  out=$( { /usr/bin/time -f "TIME %e %U %S %M" "$@" 2>&1 >&3 3>&-; } 3>&1 )
  end=$(date +%s%N)
  echo "$out" | grep -v '^TIME' | sed "s/^/  $label: /" >&2
  echo "$out" | awk -v l="$label" -v us="$(((end - start) / 1000))" \
    '/^TIME/ {printf "%s %.4f %.2f %.0f\n", l, us / 1e6, $3 + $4, $5 / 1024}'
}

echo "| corpus | files | MB | floor s (cpu) | cold s (cpu, MB RSS) | cold/floor (each run) | warm s (MB RSS) | symbols | edges | map p50/p95 ms | focus p50/p95 ms | write→map p50/max ms |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"
for corpus in $CORPORA; do
  root="$WORK/$corpus"
  store=$(mktemp -d)
  floor_out=$("$FLOOR" "$root")
  # The floor and the cold index alternate, $REPS times each; the table shows medians.
  runs=""
  for _ in $(seq "$REPS"); do
    rm -rf "${store:?}"/*
    runs+="$(measure floor "$FLOOR" "$root" 2>/dev/null) $(measure cold "$TACK" index --root "$root" --index-dir "$store" 2>/dev/null)"$'\n'
  done
  read -r fw fc cw cc cr ratio ratios < <(python3 - "$runs" <<'PY'
import statistics, sys
runs = [line.split() for line in sys.argv[1].strip().splitlines()]
med = lambda i: statistics.median(float(r[i]) for r in runs)
each = sorted(float(r[5]) / float(r[1]) for r in runs)
print(f"{med(1):.3f} {med(2):.2f} {med(5):.3f} {med(6):.2f} {med(7):.0f} {med(5) / med(1):.2f} {each[0]:.2f}–{each[-1]:.2f}")
PY
)
  cold_out=$("$TACK" index --root "$root" --index-dir "$store" 2>/dev/null)
  warm=$(measure warm "$TACK" index --root "$root" --index-dir "$store")
  files=$(echo "$floor_out" | sed 's/.*files=\([0-9]*\).*/\1/')
  mb=$(echo "$floor_out" | awk -F'bytes=' '{split($2,a," "); printf "%.1f", a[1]/1e6}')
  symbols=$(echo "$cold_out" | awk '{print $3}')
  edges=$(echo "$cold_out" | awk '{print $7}')
  case $corpus in
    cpython) focus=Message; ext=py ;;
    rust) focus=Runtime; ext=rs ;;
    go) focus=Request; ext=go ;;
    java) focus=HashMap; ext=java ;;
    ts) focus=Effect; ext=ts ;;
    ts-npm) focus=Node; ext=ts ;;
    js) focus=Compiler; ext=js ;;
    c) focus=ZSTD_compress; ext=c ;;
    cpp) focus=basic_string; ext=h ;;
  esac
  lat=$(python3 bench/map_latency.py "$TACK" "$root" "$store" "$focus" "$ext" 30)
  get() { echo "$lat" | tr ' ' '\n' | grep "^$1=" | cut -d= -f2; }
  read -r _ ww _ wr <<<"$warm"
  ww=$(printf "%.3f" "$ww")
  echo "| $corpus | $files | $mb | $fw ($fc) | $cw ($cc, $cr) | ${ratio}× ($ratios) | $ww ($wr) | $symbols | $edges | $(get map_no_focus_p50_ms)/$(get map_no_focus_p95_ms) | $(get map_focus_p50_ms)/$(get map_focus_p95_ms) | $(get write_to_map_p50_ms)/$(get write_to_map_max_ms) |"
  rm -rf "$store"
done
