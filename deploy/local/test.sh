#!/usr/bin/env bash
# `npm test`: prepares the machine, typechecks the whole repository, then runs every test tier (extra args go to vitest).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=deploy/local/setup.sh
source deploy/local/setup.sh

echo "[test] tsc --noEmit" >&2
npx tsc --noEmit -p tsconfig.json
echo "[test] vitest run $*" >&2
npx vitest run "$@"
