#!/usr/bin/env bash
# `npm start`: runs the whole service on this machine: the pinned nats-server embedded (unless NATS_URL is set) plus gateway,
# aggregator and extractor, with output prefixed by service name. Ctrl-C stops everything; if one process dies, all stop
# and the script exits non-zero.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."
# shellcheck source=deploy/local/setup.sh
source deploy/local/setup.sh

NATS_PORT="${NATS_PORT:-4223}"
declare -A names=()
service_pids=()
nats_pid=""
stopping=0

# Starts a process with stdout and stderr prefixed; $! stays the process itself, so signals reach it directly.
launch() {
  local name="$1"
  shift
  "$@" > >(sed -u "s/^/[$name] /") 2>&1 &
  names[$!]="$name"
}

stop_all() {
  local code="$1"
  if [ "$stopping" = "1" ]; then return; fi
  stopping=1
  trap - INT TERM
  # Services first, so they can drain their NATS connections while the server is still up.
  terminate "${service_pids[@]}"
  if [ -n "$nats_pid" ]; then terminate "$nats_pid"; fi
  exit "$code"
}

# SIGTERM, then up to 10 s of grace before SIGKILL.
terminate() {
  local pid
  for pid in "$@"; do kill -TERM "$pid" 2>/dev/null || true; done
  for _ in $(seq 1 100); do
    local alive=0
    for pid in "$@"; do if kill -0 "$pid" 2>/dev/null; then alive=1; fi; done
    if [ "$alive" = "0" ]; then break; fi
    sleep 0.1
  done
  for pid in "$@"; do kill -KILL "$pid" 2>/dev/null || true; done
  wait "$@" 2>/dev/null || true
}

trap 'stop_all 130' INT
trap 'stop_all 143' TERM

if [ -z "${NATS_URL:-}" ]; then
  mkdir -p "$DATA_DIR/nats"
  launch nats "$NATS_SERVER_BIN" -a 127.0.0.1 -p "$NATS_PORT" -js -sd "$DATA_DIR/nats"
  nats_pid=$!
  export NATS_URL="nats://127.0.0.1:$NATS_PORT"
  # Wait until it accepts connections, so the services do not start with a refused connection.
  for _ in $(seq 1 100); do
    if ! kill -0 "$nats_pid" 2>/dev/null; then
      echo "[start] nats-server exited (is port $NATS_PORT taken? set NATS_PORT or NATS_URL)" >&2
      stop_all 1
    fi
    if (exec 3<>"/dev/tcp/127.0.0.1/$NATS_PORT") 2>/dev/null; then break; fi
    sleep 0.1
  done
  (exec 3<>"/dev/tcp/127.0.0.1/$NATS_PORT") 2>/dev/null || {
    echo "[start] nats-server did not listen on $NATS_PORT within 10 s" >&2
    stop_all 1
  }
  echo "[start] embedded nats-server on $NATS_URL (store $DATA_DIR/nats)" >&2
fi

# Links are signed by the gateway (answers) and by the aggregator and extractor (webhooks, thumbnails): all three get
# the same base, the gateway's own address unless PUBLIC_BASE_URL is set.
export PUBLIC_BASE_URL="${PUBLIC_BASE_URL:-http://127.0.0.1:${PORT:-8080}}"

# A small young generation keeps each service's RSS within its budget under load (docs/performance.md).
export NODE_OPTIONS="--max-semi-space-size=4${NODE_OPTIONS:+ $NODE_OPTIONS}"
# NODE_COMPILE_CACHE comes from setup.sh: after the first start, the services load without stripping TypeScript.
# Each service serves Prometheus metrics on its own port: 9464 gateway, 9465 aggregator, 9466 extractor by default.
metrics_port="${METRICS_PORT_BASE:-9464}"
for service in gateway aggregator extractor; do
  launch "$service" env METRICS_PORT="$metrics_port" node "services/$service/src/main.ts"
  service_pids+=("$!")
  metrics_port=$((metrics_port + 1))
done

watched=("${service_pids[@]}")
if [ -n "$nats_pid" ]; then watched+=("$nats_pid"); fi

# Any exit is unexpected: a service only stops when we stop it.
code=0
wait -n -p dead "${watched[@]}" || code=$?
if [ "$stopping" = "0" ]; then
  echo "[start] ${names[$dead]:-a process} exited with code $code; stopping the others" >&2
  if [ "$code" = "0" ]; then code=1; fi
  stop_all "$code"
fi
