#!/usr/bin/env bash
# `npm run --silent mds -- ...`: the user CLI (resolve, download, platforms, jobs) against MDS_URL (default the local gateway).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
root="$(pwd)"
MDS_SETUP_QUIET=1
# shellcheck source=deploy/local/setup.sh
source deploy/local/setup.sh
unset MDS_SETUP_QUIET
# npm runs scripts from the repository root; files named on the command line are meant relative to where the user is.
cd "${INIT_CWD:-$root}"
exec node "$root/packages/client/src/cli/main.ts" "$@"
