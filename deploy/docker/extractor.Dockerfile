# Extractor image: resolves media and runs downloads with the pinned yt-dlp and ffmpeg. Build from the repository root:
#   docker build -f deploy/docker/extractor.Dockerfile .
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY services/gateway/package.json services/gateway/
COPY services/aggregator/package.json services/aggregator/
COPY services/extractor/package.json services/extractor/
# youtube-dl-exec is used with the venv's yt-dlp below, never with a binary it downloads itself.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

# The venv is built on the same base as the runtime, so its python3 symlinks stay valid after the copy.
FROM node:24-slim AS ytdlp
ARG YT_DLP_VERSION=2026.10.26
# Beside yt-dlp so --impersonate works; the same pin as deploy/local/setup.sh.
ARG CURL_CFFI_VERSION=0.16.3
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 python3-venv \
 && rm -rf /var/lib/apt/lists/*
RUN python3 -m venv /opt/yt-dlp \
 && /opt/yt-dlp/bin/pip install --no-cache-dir --disable-pip-version-check "yt-dlp==${YT_DLP_VERSION}" "curl_cffi==${CURL_CFFI_VERSION}"

FROM node:24-slim
# python3-venv: the extractor installs the releases the fleet chooses (`extractors use`) into venvs of their own.
RUN apt-get update \
 && apt-get install -y --no-install-recommends ffmpeg python3 python3-venv ca-certificates curl \
 && rm -rf /var/lib/apt/lists/*
COPY --from=ytdlp /opt/yt-dlp /opt/yt-dlp
ENV NODE_ENV=production \
    DATA_DIR=/data \
    YT_DLP_PATH=/opt/yt-dlp/bin/yt-dlp \
    FFMPEG_PATH=/usr/bin/ffmpeg \
    FFPROBE_PATH=/usr/bin/ffprobe \
    YT_DLP_CURL_CFFI_VERSION=0.16.3
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json ./
COPY shared shared
COPY services/extractor services/extractor
RUN mkdir -p /data /app/.node-compile-cache && chown node:node /data /app/.node-compile-cache
USER node
# A small young generation keeps RSS within its budget under load at no measurable cost (docs/performance.md).
# Node's compile cache, filled here by loading the service's modules once (with the same flags), spares every start
# the TypeScript stripping and its WebAssembly module: about 30 MB less RSS.
ENV NODE_OPTIONS="--max-semi-space-size=4" \
    NODE_COMPILE_CACHE=/app/.node-compile-cache
RUN node --input-type=module -e 'import { flushCompileCache } from "node:module"; await import("./services/extractor/src/main.ts"); flushCompileCache(); process.exit(0)'
CMD ["node", "services/extractor/src/main.ts"]
