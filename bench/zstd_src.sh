#!/usr/bin/env bash
# Prints the folder of zstd 1.5.7's sources as the zstd-sys crate 2.1.3 carries them, the C corpus
# of bench/index.sh and bench/navigate_lsp.sh. tack does not depend on the crate: when the cargo
# registry cache lacks it, a throwaway manifest fetches it there. Prints nothing when it cannot be
# had.
set -u
crate=zstd-sys-2.1.3+zstd.1.5.7
find_it() { ls -d "$HOME"/.cargo/registry/src/*/"$crate"/zstd 2>/dev/null | head -1; }
dir=$(find_it)
if [ -z "$dir" ]; then
  fetch=$(mktemp -d)
  mkdir -p "$fetch/src" && touch "$fetch/src/lib.rs"
  printf '[package]\nname = "fetch-zstd"\nversion = "0.0.0"\nedition = "2021"\n[dependencies]\nzstd-sys = "=2.1.3"\n' >"$fetch/Cargo.toml"
  (cd "$fetch" && cargo fetch -q) >/dev/null 2>&1
  rm -rf "$fetch"
  dir=$(find_it)
fi
echo "$dir"
