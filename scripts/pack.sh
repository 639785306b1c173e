#!/usr/bin/env bash
# Packs the assembled npm package (pkg/) into target/npm/ and prints the
# tarball's absolute path as the last line of output. Runs no build: pkg/ is
# what scripts/build.sh assembled, and packing something else would test a
# package nobody built.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
pkg="$root/pkg"
out="$root/target/npm"

for required in package.json index.d.ts dist/index.mjs dist/index.cjs dist/workerd.mjs dist/browser.mjs dist/agentfootprint.mjs dist/agentfootprint.cjs agentfootprint.d.ts dist/footprint_summarize_bg.wasm; do
  if [ ! -f "$pkg/$required" ]; then
    echo "pack: $pkg/$required is missing — run scripts/build.sh first" >&2
    exit 1
  fi
done

mkdir -p "$out"
# Pack into a private directory, then rename: test processes running in
# parallel each pack, and none may install a tarball another is still writing.
staging="$(mktemp -d "$out/.pack-XXXXXX")"
trap 'rm -rf "$staging"' EXIT
# --json names the file npm wrote, whatever the version; the log goes to stderr.
tarball_name="$(cd "$pkg" && npm pack --json --ignore-scripts --pack-destination "$staging" \
  | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].filename))')"
mv -f "$staging/$tarball_name" "$out/$tarball_name"
echo "$out/$tarball_name"
