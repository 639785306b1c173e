#!/usr/bin/env bash
# The README's main command: plays the 60-turn support conversation through a
# footprintjs memory pipeline with footprint-summarize on a SQLite file, offline
# by default. Options are passed to the CLI (see --help). Run it again to
# continue the same conversation.
#
# Bootstraps (idempotent, about a second when everything is there) and builds
# the package only when it is stale (build.sh --if-stale): a build takes a
# minute, and a current package is used as is.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

bash "$root/scripts/build.sh" --if-stale

exec node "$root/examples/demo/cli.mjs" "$@"
