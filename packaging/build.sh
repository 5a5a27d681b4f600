#!/bin/sh
# Builds what installs tack without a Rust toolchain, from this checkout:
#   packaging/build.sh [dev|release] [OUT]      (default: release, dist/)
# OUT gets the wheel (maturin: `pipx install`, `uv tool install`, `uvx --from WHEEL tack`), the
# MCP bundle tack-VERSION.mcpb (`mcpb pack`; its manifest starts `tack serve`), and server.json
# for the MCP Registry with the bundle's digest filled in. Needs `maturin` and `mcpb` (npm
# @anthropic-ai/mcpb) on PATH, or MATURIN and MCPB holding the commands (such as
# MATURIN="python3 -m maturin"). Nothing is published.
set -eu
profile=${1:-release}
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mkdir -p "${2:-$here/dist}" && cd "${2:-$here/dist}" && pwd)
maturin=${MATURIN:-maturin}
mcpb=${MCPB:-mcpb}
case $profile in
  release) dir=release ;;
  dev) dir=debug ;;
  *) echo "build.sh: the profile is dev or release, not $profile" >&2; exit 2 ;;
esac
version=$(sed -n 's/^version = "\(.*\)"$/\1/p' "$here/Cargo.toml" | head -n 1)
[ -n "$version" ] || { echo "build.sh: no version in $here/Cargo.toml" >&2; exit 1; }

cd "$here"
$maturin build --quiet --profile "$profile" --out "$out"

stage="$out/mcpb-stage"
rm -rf "$stage"
mkdir -p "$stage/server"
sed "s/@VERSION@/$version/g" packaging/mcpb/manifest.json > "$stage/manifest.json"
cp "${CARGO_TARGET_DIR:-target}/$dir/tack" "$stage/server/tack"
if command -v strip > /dev/null; then strip "$stage/server/tack"; fi
bundle="$out/tack-$version.mcpb"
rm -f "$bundle"
$mcpb validate "$stage/manifest.json"
$mcpb pack "$stage" "$bundle" > /dev/null
rm -rf "$stage"

sha=$(sha256sum "$bundle" | cut -d' ' -f1)
sed -e "s/@VERSION@/$version/g" -e "s/@SHA256@/$sha/" packaging/server.json > "$out/server.json"
ls -l "$out"
