#!/usr/bin/env bash
# Runs Biome (lint and format) from its platform binary package. The package registry these machines reach carries
# only some of @biomejs/biome's per-platform packages, so `npm ci` could not install the wrapper package; the Linux
# x64 binary is an optional dependency instead (the platform of the servers and CI). Usage: biome.sh lint|format ...
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
bin="node_modules/@biomejs/cli-linux-x64/biome"
if [ ! -x "$bin" ]; then
  echo "[biome] $bin is missing: Biome's binary is installed on Linux x64 only (an optional dependency)" >&2
  exit 1
fi
exec "$bin" "$@"
