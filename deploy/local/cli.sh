#!/usr/bin/env bash
# `npm run --silent cli -- ...`: the admin CLI (projects, keys) and the SRE CLI (projections rebuild, parked messages) against the local
# deployment; stdout carries only their output.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
MDS_SETUP_QUIET=1
# shellcheck source=deploy/local/setup.sh
source deploy/local/setup.sh
unset MDS_SETUP_QUIET

export NATS_URL="${NATS_URL:-nats://127.0.0.1:${NATS_PORT:-4223}}"
case "${1:-}" in
  # Rebuilding read models is the aggregator's business: its projections live there.
  projections | parked) exec node services/aggregator/src/cli/main.ts "$@" ;;
  *) exec node services/gateway/src/cli/main.ts "$@" ;;
esac
