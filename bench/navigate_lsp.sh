#!/usr/bin/env bash
# The navigation benchmark against language servers: precision, recall and latency of tack's
# `definition` and `references` against gopls (Go), tsserver through typescript-language-server
# (JavaScript, TypeScript), clangd (C, C++) and javac's own resolution (Java, through
# bench/JavacNav.java: no Java language server installs here), by bench/navigate_lsp.py, through
# the release `tack serve`.
#
# usage: bench/navigate_lsp.sh LANG [CORPUS_DIR] [-- navigate_lsp.py options…]
#   LANG        go | javascript | typescript | c | cpp | java | all (all: the default corpora in turn)
#   CORPUS_DIR  a tree to measure on; it is copied first (a Go corpus loses its go.sum, a JS
#               corpus without a tsconfig.json or jsconfig.json gets a jsconfig.json). Default:
#                 go          spf13/cobra: the mirror at $MIRRORS/spf13+cobra/repo, else Debian's
#                             golang-github-spf13-cobra-dev
#                 javascript  mocha's lib/ (with its tsconfig.json and package.json): the mirror at
#                             $MIRRORS/mochajs+mocha/repo, else the npm package `mocha`
#                 typescript  trpc's packages server, client, next, react-query,
#                             tanstack-react-query and upgrade (not tests, nor openapi's generated
#                             clients) with the root tsconfig: the mirror at $MIRRORS/trpc+trpc/repo,
#                             else the npm package `@trpc/server` (it ships its src/)
#                 c           zstd's lib/ as the zstd-sys crate 2.1.3 carries it (the cargo
#                             registry cache; bench/zstd_src.sh fetches it when missing)
#                 cpp         leveldb 1.20 and snappy as the PyPI sdist `leveldb` 0.201 vendors them
#                             (leveldb/ and snappy/, not the Python binding)
#                 java        mockito-core/src/main/java (less module-info.java) from the mirror at
#                             $MIRRORS/mockito+mockito/repo; its dependencies (byte-buddy, objenesis,
#                             junit, …) are not there, and javac leaves what needs them unresolved
#               C and C++ corpora get a compile_commands.json, one entry per .c (-std=c11) or
#               .cc/.cpp (-std=c++17) file, -I for the root and for every directory holding
#               headers and its parents, and the corpus's own -D flags (CDEFS; defaults below),
#               so that clangd resolves the includes; clangd runs with --background-index, and
#               the questions wait for that index.
#   options     e.g. --definitions 300 --references 150 --seed 5; BENCH_VERBOSE=1 lists the
#               disagreements (also saved in $WORK/LANG/disagreements.log)
# TACK=path/to/tack uses that binary instead of building the release one. MIRRORS defaults to
# /work/.mirror. Installs, when missing: Debian's gopls and golang-go (and the Debian sources of
# cobra's dependencies, served to the go command as a local module proxy, since the module proxy
# is not reached here), typescript and typescript-language-server from npm into $WORK/tools,
# Debian's clangd (14 in bookworm), and uses the installed JDK's javac (17) for Java.
# About a minute per language on the Go and JS/TS corpora, two for C and C++ (clangd's background
# index, and clangd asked twice per question), a quarter of one for Java (javac over the corpus).
set -euo pipefail
LANG_ARG=${1:?usage: bench/navigate_lsp.sh go|javascript|typescript|c|cpp|java|all [CORPUS_DIR] [-- options]}
shift
CORPUS_ARG=""
if [ $# -gt 0 ] && [ "$1" != "--" ]; then CORPUS_ARG=$(realpath "$1"); shift; fi
[ "${1:-}" = "--" ] && shift
OPTIONS=("$@")
cd "$(dirname "$0")/.."
BENCH=$PWD/bench
if [ -z "${TACK:-}" ]; then
  TARGET=${CARGO_TARGET_DIR:-$PWD/target}
  cargo build --release -q -p tack --bin tack
  TACK=$TARGET/release/tack
fi
MIRRORS=${MIRRORS:-/work/.mirror}
WORK=${TMPDIR:-/tmp}/tack-bench-navigate-lsp
TOOLS=$WORK/tools
TS_VERSION=5.9.3             # tsserver; typescript 7 is the native port, without tsserver
TLS_VERSION=5.3.0            # typescript-language-server; 6.x wants Node.js 22
ZSTD_DEFS="-DZSTD_MULTITHREAD -DZSTD_LEGACY_SUPPORT=1 -DDEBUGLEVEL=2"  # the code zstd-sys builds (legacy, multithread), asserts and DEBUGLOG as code
LEVELDB_DEFS="-DOS_LINUX -DLEVELDB_PLATFORM_POSIX -DSNAPPY"  # the sdist's setup.py on Linux (less -DNDEBUG: assert() as code)
LEVELDB_SDIST=leveldb==0.201
GO_DEPS="golang-github-spf13-pflag-dev golang-github-cpuguy83-go-md2man-v2-dev golang-github-inconshreveable-mousetrap-dev golang-gopkg-yaml.v3-dev"
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
mkdir -p "$WORK"

apt_need() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -gt 0 ]; then
    $SUDO apt-get update -q >/dev/null
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}" >/dev/null
  fi
}

npm_tools() {
  command -v npm >/dev/null || apt_need nodejs npm
  if [ ! -x "$TOOLS/node_modules/.bin/typescript-language-server" ] || [ ! -f "$TOOLS/node_modules/typescript/lib/tsserver.js" ]; then
    mkdir -p "$TOOLS"
    npm install --prefix "$TOOLS" --no-audit --no-fund --silent "typescript@$TS_VERSION" "typescript-language-server@$TLS_VERSION" >/dev/null
  fi
}

# from_mirror NAME DEST PATHS…: the mirror's HEAD (only PATHS) into DEST; fails without a mirror.
from_mirror() {
  local git_dir=$MIRRORS/$1/repo dest=$2
  shift 2
  [ -d "$git_dir" ] || return 1
  mkdir -p "$dest"
  git --git-dir="$git_dir" archive HEAD "$@" | tar -x -C "$dest"
}

# from_npm SPEC DEST PATHS…: the registry tarball of SPEC, only PATHS, into DEST.
from_npm() {
  local spec=$1 dest=$2 tmp
  shift 2
  tmp=$(mktemp -d)
  (cd "$tmp" && npm pack --silent "$spec" >/dev/null && tar -xzf ./*.tgz)
  mkdir -p "$dest"
  local p
  for p in "$@"; do [ -e "$tmp/package/$p" ] && cp -r "$tmp/package/$p" "$dest/"; done
  rm -rf "$tmp"
}

run() {
  local lang=$1 corpus=$2 dir=$WORK/$1
  shift 2
  rm -rf "$dir/index"
  mkdir -p "$dir"
  echo "== $lang on $corpus ($(find "$corpus" -type f | wc -l) files)" >&2
  local started=$SECONDS
  BENCH_VERBOSE=1 python3 "$BENCH/navigate_lsp.py" "$TACK" "$corpus" "$dir/index" --lang "$lang" "$@" "${OPTIONS[@]}" \
    2> >(tee "$dir/disagreements.log" | if [ -n "${BENCH_VERBOSE:-}" ]; then cat; else grep -v '^DEF \|^REF '; fi >&2) | tee "$dir/report.md"
  echo "$lang: $((SECONDS - started)) s; disagreements in $dir/disagreements.log" >&2
}

bench_go() {
  apt_need golang-go gopls $GO_DEPS
  local dir=$WORK/go corpus=$WORK/go/corpus
  rm -rf "$dir" && mkdir -p "$dir"
  if [ -n "$CORPUS_ARG" ]; then cp -a "$CORPUS_ARG" "$corpus"
  elif ! from_mirror spf13+cobra "$corpus"; then
    apt_need golang-github-spf13-cobra-dev
    cp -a /usr/share/gocode/src/github.com/spf13/cobra "$corpus"
  fi
  [ -f "$corpus/go.mod" ] || { echo "gopls needs a go.mod in $corpus" >&2; exit 2; }
  # The go command reaches no module proxy here: it is given one made of Debian's sources of the
  # modules go.mod requires (/usr/share/gocode/src), under the versions go.mod asks for, and a
  # go.mod alone for those Debian lacks. go.sum would reject them, so the copy drops it.
  rm -f "$corpus/go.sum"
  python3 - "$corpus/go.mod" "$dir/goproxy" /usr/share/gocode/src <<'PY'
import json, os, re, sys, zipfile
gomod, proxy, src = sys.argv[1:4]
ALIASES = {"go.yaml.in/yaml/v3": "gopkg.in/yaml.v3"}  # the same module, renamed upstream

def requires(text):
    out = []
    for block in re.findall(r"^require\s*\((.*?)^\)", text, re.S | re.M):
        out += re.findall(r"^\s*(\S+)\s+(v\S+)", block, re.M)
    out += re.findall(r"^require\s+([^\s(]+)\s+(v\S+)", text, re.M)
    return [(m.strip('"'), v) for m, v in out]

todo, done = requires(open(gomod).read()), set()
while todo:
    mod, ver = todo.pop()
    if (mod, ver) in done:
        continue
    done.add((mod, ver))
    d = os.path.join(src, ALIASES.get(mod, mod))
    d = d if os.path.isdir(d) else None
    text = open(os.path.join(d, "go.mod")).read() if d and os.path.exists(os.path.join(d, "go.mod")) else ""
    text = re.sub(r"^module\s+\S+", f"module {mod}", text, flags=re.M) if re.search(r"^module", text, re.M) else f"module {mod}\n"
    todo += requires(text)
    out = os.path.join(proxy, re.sub(r"[A-Z]", lambda m: "!" + m.group().lower(), mod), "@v")
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "list"), "a") as f:
        f.write(ver + "\n")
    json.dump({"Version": ver, "Time": "2020-01-01T00:00:00Z"}, open(os.path.join(out, ver + ".info"), "w"))
    open(os.path.join(out, ver + ".mod"), "w").write(text)
    with zipfile.ZipFile(os.path.join(out, ver + ".zip"), "w") as z:
        for dp, dns, fns in os.walk(d) if d else []:
            dns[:] = [x for x in dns if not os.path.exists(os.path.join(dp, x, "go.mod"))]
            for fn in fns:
                full = os.path.join(dp, fn)
                rel = os.path.relpath(full, d)
                if rel != "go.mod" and os.path.exists(full):
                    z.write(full, f"{mod}@{ver}/{rel}")
        z.writestr(f"{mod}@{ver}/go.mod", text)
    print(f"module proxy: {mod} {ver} {'from ' + d if d else '(go.mod only: not in Debian)'}", file=sys.stderr)
PY
  export GOPROXY=file://$dir/goproxy GOSUMDB=off GOFLAGS=-mod=mod GOPATH=$dir/gopath GOCACHE=$dir/gocache GOTOOLCHAIN=local
  # gopls lists packages with the proxy off: fill the module cache first.
  (cd "$corpus" && go list -deps -test ./... >/dev/null) || echo "go list failed: gopls may miss dependencies" >&2
  run go "$corpus" --server gopls --label "Go vs gopls $(dpkg-query -W -f '${Version}' gopls 2>/dev/null || true)"
}

bench_javascript() {
  npm_tools
  local dir=$WORK/javascript corpus=$WORK/javascript/corpus
  rm -rf "$dir" && mkdir -p "$dir"
  if [ -n "$CORPUS_ARG" ]; then cp -a "$CORPUS_ARG" "$corpus"
  elif ! from_mirror mochajs+mocha "$corpus" lib tsconfig.json package.json; then
    from_npm mocha "$corpus" lib package.json
  fi
  # Without a project tsserver makes one inferred project per open file, and `references`
  # searches only those: a jsconfig.json puts every file in one project.
  if [ ! -f "$corpus/tsconfig.json" ] && [ ! -f "$corpus/jsconfig.json" ]; then
    echo '{"compilerOptions": {"allowJs": true, "checkJs": false, "module": "nodenext", "target": "es2022", "noEmit": true}, "include": ["**/*"]}' >"$corpus/jsconfig.json"
  fi
  tsserver_run javascript "$corpus" "JavaScript vs tsserver $TS_VERSION"
}

bench_typescript() {
  npm_tools
  local dir=$WORK/typescript corpus=$WORK/typescript/corpus
  rm -rf "$dir" && mkdir -p "$dir"
  if [ -n "$CORPUS_ARG" ]; then cp -a "$CORPUS_ARG" "$corpus"
  elif ! from_mirror trpc+trpc "$corpus" tsconfig.json tsconfig.build.json package.json \
      packages/server packages/client packages/next packages/react-query packages/tanstack-react-query packages/upgrade; then
    from_npm "@trpc/server@11" "$corpus" src package.json
  fi
  if [ ! -f "$corpus/tsconfig.json" ]; then
    echo '{"compilerOptions": {"module": "preserve", "target": "es2022", "strict": true, "noEmit": true, "skipLibCheck": true}, "include": ["**/*"]}' >"$corpus/tsconfig.json"
  fi
  tsserver_run typescript "$corpus" "TypeScript vs tsserver $TS_VERSION"
}

# compile_db CORPUS DEFINES: a compile_commands.json with one entry per C/C++ source file.
compile_db() {
  python3 - "$1" "$2" <<'PY'
import json, os, shlex, sys
root, defines = os.path.realpath(sys.argv[1]), shlex.split(sys.argv[2])
headers, sources = set(), []
for dp, dns, fns in os.walk(root):
    dns[:] = sorted(d for d in dns if not d.startswith("."))
    for fn in sorted(fns):
        if fn.endswith((".h", ".hh", ".hpp", ".hxx")):
            headers.add(dp)
        elif fn.endswith((".c", ".cc", ".cpp", ".cxx")):
            sources.append(os.path.join(dp, fn))
# Every directory holding headers and its parents up to the root: `#include "db/db_impl.h"`
# names a header from a parent of its directory.
dirs = set()
for d in headers:
    while d.startswith(root) and d not in dirs:
        dirs.add(d)
        d = os.path.dirname(d)
includes = [f"-I{d}" for d in [root] + sorted(dirs - {root})]
entries = []
for path in sources:
    cxx = not path.endswith(".c")
    entries.append({"directory": root, "file": path,
                    "arguments": ["c++" if cxx else "cc", "-std=c++17" if cxx else "-std=c11", *includes, *defines, "-c", path]})
json.dump(entries, open(os.path.join(root, "compile_commands.json"), "w"), indent=1)
print(f"compile_commands.json: {len(entries)} files, {len(includes)} include directories", file=sys.stderr)
PY
}

clangd_run() {
  local lang=$1 corpus=$2 label=$3
  run "$lang" "$corpus" --server "clangd --background-index --pch-storage=disk --limit-references=0 --limit-results=0 --header-insertion=never --log=error" \
    --index-wait 900 --timeout 300 --label "$label vs clangd $(clangd --version | sed -n 's/.*clangd version \([0-9.]*\).*/\1/p')"
}

bench_c() {
  apt_need clangd
  local dir=$WORK/c corpus=$WORK/c/corpus
  rm -rf "$dir" && mkdir -p "$dir"
  if [ -n "$CORPUS_ARG" ]; then cp -a "$CORPUS_ARG" "$corpus"
  else
    local zstd
    zstd=$(bash bench/zstd_src.sh)
    [ -n "$zstd" ] || { echo "zstd-sys 2.1.3 cannot be fetched into the cargo registry cache" >&2; exit 2; }
    cp -a "$zstd/lib" "$corpus"
  fi
  compile_db "$corpus" "${CDEFS-$ZSTD_DEFS}"
  clangd_run c "$corpus" "C"
}

bench_cpp() {
  apt_need clangd
  local dir=$WORK/cpp corpus=$WORK/cpp/corpus
  rm -rf "$dir" && mkdir -p "$dir"
  if [ -n "$CORPUS_ARG" ]; then cp -a "$CORPUS_ARG" "$corpus"
  else
    local tmp
    tmp=$(mktemp -d)
    python3 -m pip download -q --no-deps --no-binary :all: -d "$tmp" "$LEVELDB_SDIST" >/dev/null
    tar -xzf "$tmp"/leveldb-*.tar.gz -C "$tmp"
    mkdir -p "$corpus"
    cp -a "$tmp"/leveldb-*/leveldb "$tmp"/leveldb-*/snappy "$corpus/"
    rm -rf "$tmp"
  fi
  compile_db "$corpus" "${CDEFS-$LEVELDB_DEFS}"
  clangd_run cpp "$corpus" "C++"
}

bench_java() {
  local dir=$WORK/java corpus=$WORK/java/corpus
  rm -rf "$dir" && mkdir -p "$dir"
  if [ -n "$CORPUS_ARG" ]; then cp -a "$CORPUS_ARG" "$corpus"
  else
    from_mirror mockito+mockito "$dir/repo" mockito-core/src/main/java || { echo "no mirror at $MIRRORS/mockito+mockito/repo" >&2; exit 2; }
    mv "$dir/repo/mockito-core/src/main/java" "$corpus" && rm -rf "$dir/repo"
  fi
  # A module-info.java would make javac a module compilation, which the missing modules stop.
  find "$corpus" -name module-info.java -delete
  local started=$SECONDS
  java --add-exports jdk.compiler/com.sun.tools.javac.tree=ALL-UNNAMED --add-exports jdk.compiler/com.sun.tools.javac.code=ALL-UNNAMED \
    "$BENCH/JavacNav.java" "$corpus" "$dir/links.tsv"
  echo "javac links: $((SECONDS - started)) s" >&2
  run java "$corpus" --links "$dir/links.tsv" --label "Java vs javac $(javac -version 2>&1 | awk '{print $2}')"
}

tsserver_run() {
  run "$1" "$2" --server "$TOOLS/node_modules/.bin/typescript-language-server --stdio" \
    --init-options "{\"tsserver\": {\"path\": \"$TOOLS/node_modules/typescript/lib/tsserver.js\"}, \"maxTsServerMemory\": 4096}" \
    --label "$3"
}

case "$LANG_ARG" in
  go) bench_go ;;
  javascript | js) bench_javascript ;;
  typescript | ts) bench_typescript ;;
  c) bench_c ;;
  cpp | c++) bench_cpp ;;
  java) bench_java ;;
  all) [ -z "$CORPUS_ARG" ] || { echo "all takes no corpus" >&2; exit 2; }; bench_go; bench_javascript; bench_typescript; bench_c; bench_cpp; bench_java ;;
  *) echo "unknown language $LANG_ARG (go, javascript, typescript, c, cpp, java, all)" >&2; exit 2 ;;
esac
