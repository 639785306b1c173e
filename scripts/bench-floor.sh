#!/usr/bin/env bash
# The floor of a callback fold: builds the floor probe (scripts/bench/floor,
# whose lib.rs says what it keeps and what it leaves out) as the package is
# built, then times it with scripts/bench.mjs against the same baseline, per
# recall and with a fresh stage per recall. Whatever ratio the probe shows,
# no stage built this way can beat. Extra arguments go to bench.mjs
# (e.g. --sizes 20 --quick).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
bash "$here/bootstrap.sh"
# shellcheck source=toolchain-env.sh
source "$here/toolchain-env.sh"
cd "$root"

out=target/floor-probe
cargo build --quiet --release --target wasm32-unknown-unknown \
  --manifest-path scripts/bench/floor/Cargo.toml --target-dir "$out"
rm -rf "$out/pkg"
wasm-bindgen --target web --out-dir "$out/pkg" --no-typescript "$out/wasm32-unknown-unknown/release/floor_probe.wasm"
optimize_wasm "$out/pkg/floor_probe_bg.wasm"
node scripts/bench.mjs --subject scripts/bench/floor/api.mjs --baseline scripts/bench/reference-original.mjs \
  --cases fold-callback --sections recall,fresh --sizes 20,200 "$@"
