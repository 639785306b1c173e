#!/usr/bin/env bash
# Builds the npm package into pkg/: release Wasm → wasm-bindgen (web target)
# → wasm-opt → scripts/assemble-package.mjs (inline bytes, ESM + CJS bundles,
# pkg-template files). Bootstraps the toolchain first (quick when present).
#
#   --if-stale   build only when pkg/dist/index.mjs is missing, older than
#                something it is built from (the list below is this script's
#                own inputs), or a profiling build; a current package is used
#                as is.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bash "$here/bootstrap.sh"
# Left in pkg/ by an FPS_WASM_NAMES=1 build, so --if-stale never reuses one.
# It goes with the package it describes: every build starts pkg/ anew
# (assemble-package.mjs), and package.json's "files" never packs it.
names_mark="$root/pkg/.keeps-names"
if [ "${1:-}" = --if-stale ]; then
  entry="$root/pkg/dist/index.mjs"
  if [ -f "$entry" ] && [ ! -f "$names_mark" ] && [ -z "$(cd "$root" && find src pkg-template Cargo.toml Cargo.lock .cargo package-lock.json \
      scripts/build.sh scripts/bootstrap.sh scripts/toolchain-env.sh scripts/package-entry.mjs scripts/assemble-package.mjs \
      scripts/wasm-init-inline.mjs scripts/wasm-init-module.mjs scripts/wasm-init-url.mjs \
      -newer "$entry" -print -quit)" ]; then
    exit 0
  fi
  echo "[build] pkg/dist/index.mjs is missing, older than its sources or a profiling build: building" >&2
fi
# shellcheck source=toolchain-env.sh
source "$here/toolchain-env.sh"
cd "$root"

cargo build --quiet --release --target wasm32-unknown-unknown
rm -rf target/bindgen
# FPS_WASM_NAMES=1 keeps function names (wasm-bindgen --keep-debug, wasm-opt
# -g), for readable CPU profiles (README, "Profiling").
keep_names=()
wasm_opt_names=()
if [ "${FPS_WASM_NAMES:-0}" = 1 ]; then keep_names=(--keep-debug); wasm_opt_names=(-g); fi
wasm-bindgen --target web --out-dir target/bindgen --no-typescript "${keep_names[@]}" \
  target/wasm32-unknown-unknown/release/footprint_summarize.wasm
optimize_wasm target/bindgen/footprint_summarize_bg.wasm "${wasm_opt_names[@]}"
node scripts/assemble-package.mjs
if [ "${FPS_WASM_NAMES:-0}" = 1 ]; then touch "$names_mark"; fi
