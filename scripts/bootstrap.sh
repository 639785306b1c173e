#!/usr/bin/env bash
# Installs everything the build and the tests need, on a brand-new machine or an
# old one. Idempotent: each step checks first and is skipped when already done,
# so a warm run takes about a second.
#
# Two toolchain paths:
#   * rustup already has the wasm32-unknown-unknown target → use it as is.
#   * otherwise (these machines: rustup cannot download targets) → Debian's
#     rustc-web 1.9x with its std sources, and a std for wasm32 built once with
#     -Z build-std and installed into Debian's sysroot.
# scripts/toolchain-env.sh (sourced by every other script) puts the chosen
# toolchain first on PATH.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
# shellcheck source=toolchain-env.sh
source "$here/toolchain-env.sh"

log() { printf '[bootstrap] %s\n' "$*" >&2; }
sudo_if_needed() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }

apt_updated=0
apt_install() {
  local missing=()
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  if [ $apt_updated = 0 ]; then
    log "apt-get update"
    sudo_if_needed apt-get update -qq
    apt_updated=1
  fi
  log "apt-get install ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive sudo_if_needed apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

# 1. System packages: Chromium and its driver for the browser tests, Redis
#    for the fleet tests (the test command starts its own server on a free
#    loopback port), and (only when rustup cannot provide wasm32) Debian's
#    Rust with its std sources. wasm-opt comes from npm's binaryen (step 4):
#    Debian's is too old.
apt_install chromium chromium-driver redis-server
if [ "$FPS_TOOLCHAIN" = debian ]; then
  apt_install rustc-web cargo-web rust-web-src rust-web-llvm
  # rust-lld is a link to lld-N, whose package rust-web-llvm does not pull in;
  # read N from the link so an LLVM bump in rustc-web keeps linking.
  lld_package="$(readlink /usr/bin/rust-lld || true)"
  [ -n "$lld_package" ] || { echo "bootstrap: /usr/bin/rust-lld is missing after installing rust-web-llvm" >&2; exit 1; }
  apt_install "$lld_package"
fi

# 2. std for wasm32 in Debian's sysroot (skipped on the rustup path). A stamp
#    records the rustc that built it: a security update of rustc-web makes
#    the old rlibs unusable (E0514), and then they are rebuilt.
if [ "$FPS_TOOLCHAIN" = debian ]; then
  wasm_lib="$(/usr/bin/rustc --print sysroot)/lib/rustlib/wasm32-unknown-unknown/lib"
  stamp="$wasm_lib/.built-by-rustc"
  if ! ls "$wasm_lib"/libstd-*.rlib >/dev/null 2>&1 || [ "$(cat "$stamp" 2>/dev/null)" != "$(/usr/bin/rustc -vV)" ]; then
    log "building std for wasm32-unknown-unknown (about 2 minutes, once per machine)"
    scratch="$(mktemp -d)"
    mkdir -p "$scratch/src"
    cat >"$scratch/Cargo.toml" <<'TOML'
[package]
name = "wasm-std-builder"
version = "0.0.0"
edition = "2021"
[lib]
path = "src/lib.rs"
[profile.release]
opt-level = 3
lto = "fat"
codegen-units = 1
panic = "abort"
TOML
    echo '' >"$scratch/src/lib.rs"
    (cd "$scratch" && RUSTC_BOOTSTRAP=1 /usr/bin/cargo build --quiet --release \
        --target wasm32-unknown-unknown -Z build-std=std,panic_abort,test)
    sudo_if_needed mkdir -p "$wasm_lib"
    sudo_if_needed find "$wasm_lib" -name 'lib*.rlib' -delete
    # Only the std crates: the throwaway crate's own rlib stays behind.
    sudo_if_needed find "$scratch/target/wasm32-unknown-unknown/release/deps" -name 'lib*.rlib' \
      ! -name 'libwasm_std_builder-*' -exec cp {} "$wasm_lib/" \;
    /usr/bin/rustc -vV | sudo_if_needed tee "$stamp" >/dev/null
    rm -rf "$scratch"
  fi
fi

# 3. wasm-bindgen-cli at exactly the version Cargo.toml pins, and wasm-pack.
pinned="$(sed -n 's/^wasm-bindgen = { version = "=\([0-9.]*\)".*/\1/p' "$root/Cargo.toml")"
[ -n "$pinned" ] || { echo "bootstrap: could not read the pinned wasm-bindgen version from Cargo.toml" >&2; exit 1; }
if [ "$(wasm-bindgen --version 2>/dev/null | awk '{print $2}')" != "$pinned" ]; then
  log "cargo install wasm-bindgen-cli $pinned (about 5 minutes, once per machine)"
  # No --locked: the registry snapshot here lacks some of its locked versions.
  cargo install --quiet wasm-bindgen-cli --version "=$pinned" --force
fi
# Pinned too: a newer wasm-pack may need a newer Rust than Debian ships.
wasm_pack_version=0.15.1
if [ "$(wasm-pack --version 2>/dev/null | awk '{print $2}')" != "$wasm_pack_version" ]; then
  log "cargo install wasm-pack $wasm_pack_version (about 5 minutes, once per machine)"
  cargo install --quiet wasm-pack --version "=$wasm_pack_version" --locked --force
fi

# 4. npm dependencies: esbuild and wasm-opt for the build, and the JS tests,
#    demo and benchmarks (lockfile-exact). Node comes with these machines;
#    Debian's own nodejs is 18, too old for Vite 7 and the test runner.
node_major="$(node --version 2>/dev/null | sed -E 's/^v([0-9]+)\..*/\1/')"
if [ -z "$node_major" ] || [ "$node_major" -lt 20 ] || ! command -v npm >/dev/null 2>&1; then
  echo "bootstrap: Node.js 20.19 or newer with npm is required (found: $(node --version 2>/dev/null || echo none)). Install it, then run this again." >&2
  exit 1
fi
if [ ! -d "$root/node_modules" ] || [ "$root/package-lock.json" -nt "$root/node_modules/.package-lock.json" ]; then
  log "npm ci"
  (cd "$root" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
# 5. agentfootprint, for the tests that run a real Agent: the registry here
#    does not carry it, so it comes from ../shared/vendor when that is there
#    (its README says how), installed without saving, so package.json and the
#    lockfile stay valid on machines without it. Where it is absent, those
#    tests are skipped and say what to install.
vendored="$(ls "$root"/../shared/vendor/agentfootprint-*.tgz 2>/dev/null | tail -1 || true)"
if [ -n "$vendored" ] && [ ! -f "$root/node_modules/agentfootprint/package.json" ]; then
  log "npm install --no-save $(basename "$vendored") (from ../shared/vendor)"
  (cd "$root" && npm install --no-save --no-audit --no-fund --loglevel=error "$vendored" >/dev/null)
fi
# 6. The other runtimes the package is tested in (Node 22, 24 and 26, Deno,
#    Bun, and workerd through miniflare), each a registry package that ships
#    its binary; installed apart from the dev tree, since each Node package
#    links a `node` of its own.
runtimes="$root/scripts/runtimes"
if [ ! -d "$runtimes/node_modules" ] || [ "$runtimes/package-lock.json" -nt "$runtimes/node_modules/.package-lock.json" ]; then
  log "npm ci (scripts/runtimes: Node 22/24/26, Deno, Bun, miniflare)"
  (cd "$runtimes" && npm ci --no-audit --no-fund --loglevel=error >/dev/null)
fi
