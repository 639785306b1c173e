# Sourced by every script: chooses the Rust toolchain that can build wasm32 and
# puts it first on PATH. Exports FPS_TOOLCHAIN=rustup|debian.
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
