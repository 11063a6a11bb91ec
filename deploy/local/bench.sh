#!/usr/bin/env bash
# `npm run bench [-- NAME ...]`: prepares the machine like the tests do, then runs the benchmarks under bench/ (tables on stdout).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=deploy/local/setup.sh
source deploy/local/setup.sh
exec node bench/run.ts "$@"
