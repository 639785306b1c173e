#!/usr/bin/env bash
# The README's main command: plays the 60-turn support conversation through a
# footprintjs memory pipeline with footprint-summarize on a SQLite file, offline
# by default. Options are passed to the CLI (see --help). Run it again to
# continue the same conversation.
#
# Bootstraps (idempotent, about a second when everything is there), then
# builds the package only when pkg/dist/index.mjs is missing or older than
# anything it is built from: a build takes a minute, and a current package is
# used as is.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
package_entry="$root/pkg/dist/index.mjs"

bash "$root/scripts/bootstrap.sh"
if [ ! -f "$package_entry" ]; then
  echo "[demo] $package_entry is missing: building the package (scripts/build.sh)" >&2
  bash "$root/scripts/build.sh"
elif [ -n "$(cd "$root" && find src pkg-template Cargo.toml Cargo.lock scripts/package-entry.mjs \
    scripts/assemble-package.mjs -newer "$package_entry" -print -quit)" ]; then
  echo "[demo] sources changed since the package was built: rebuilding (scripts/build.sh)" >&2
  bash "$root/scripts/build.sh"
fi

exec node "$root/scripts/demo/cli.mjs" "$@"
