#!/usr/bin/env bash
# The Rust navigation benchmark: tack's `definition` and `references` on walkdir (the version in
# tack's Cargo.lock, from the cargo registry cache) against rustc's own name resolution, which
# rustdoc exports as links in its rendered source when given --generate-link-to-definition
# (an unstable flag, enabled on stable with RUSTC_BOOTSTRAP=1).
# usage: bench/navigate_rust.sh            (~1 minute after the release build)
set -euo pipefail
cd "$(dirname "$0")/.."
TARGET=${CARGO_TARGET_DIR:-$PWD/target}
cargo build --release -q -p tack --bin tack
WORK=${TMPDIR:-/tmp}/tack-bench-navigate-rust
rm -rf "$WORK" && mkdir -p "$WORK"
VERSION=$(python3 -c "import re; print(max(re.findall(r'name = \"walkdir\"\nversion = \"([^\"]+)\"', open('Cargo.lock').read())))")
REGISTRY=$(ls -d "$HOME"/.cargo/registry/src/*/ | head -1)
cp -r "$REGISTRY/walkdir-$VERSION" "$WORK/walkdir"
(cd "$WORK/walkdir" && RUSTC_BOOTSTRAP=1 RUSTDOCFLAGS="-Zunstable-options --generate-link-to-definition" \
  CARGO_TARGET_DIR="$WORK/target" cargo doc --no-deps -q)
python3 bench/navigate_rust.py "$TARGET/release/tack" "$WORK/walkdir" "$WORK/target/doc/src/walkdir" "$WORK/index"
