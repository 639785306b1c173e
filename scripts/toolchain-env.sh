# Sourced by every script: chooses the Rust toolchain that can build wasm32 and
# puts it first on PATH (exports FPS_TOOLCHAIN=rustup|debian), and defines
# optimize_wasm, the one wasm-opt step every Wasm build here shares.
if command -v rustup >/dev/null 2>&1 && rustup target list --installed 2>/dev/null | grep -qx wasm32-unknown-unknown; then
  export FPS_TOOLCHAIN=rustup
else
  # Debian's rustc-web lives in /usr/bin; cargo-installed tools in ~/.cargo/bin.
  export FPS_TOOLCHAIN=debian
  export PATH="/usr/bin:$HOME/.cargo/bin:$PATH"
  # rustup's proxies would otherwise shadow Debian's cargo/rustc via ~/.cargo/bin.
  export RUSTC=/usr/bin/rustc
  export CARGO=/usr/bin/cargo
fi
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"

# Optimizes a wasm-bindgen output in place, as the package is (further
# wasm-opt flags after the file). binaryen from npm: Debian's 108 breaks the
# externref table wasm-bindgen emits. -Oz runs after rustc's opt-level "z"
# (Cargo.toml says why). Rust enables these Wasm features by default;
# binaryen must be told. The producers and target-features sections are read
# by no runtime. --converge repeats the passes while they still shrink the
# module, for a few seconds of build.
optimize_wasm() {
  local wasm="$1"
  shift
  "$(dirname "${BASH_SOURCE[0]}")/../node_modules/.bin/wasm-opt" -Oz --converge --strip-producers --strip-target-features "$@" \
    --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
    --enable-mutable-globals --enable-reference-types --enable-multivalue \
    "$wasm" -o "$wasm"
}
