# Gateway image: the public /v1 HTTP API (and the admin CLI). Build from the repository root:
#   docker build -f deploy/docker/gateway.Dockerfile .
# Stage 1 installs production dependencies only; the runtime stage copies them with the sources (Node 24 strips the
# TypeScript types at load time, so there is no compile step).
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY shared/package.json shared/
COPY services/gateway/package.json services/gateway/
COPY services/aggregator/package.json services/aggregator/
COPY services/extractor/package.json services/extractor/
# --ignore-scripts: youtube-dl-exec would otherwise try to fetch a yt-dlp binary the gateway never runs.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund

FROM node:24-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules node_modules
COPY package.json ./
COPY shared shared
COPY services/gateway services/gateway
RUN mkdir -p /data /app/.node-compile-cache && chown node:node /data /app/.node-compile-cache
USER node
# A small young generation keeps RSS within its budget under load at no measurable cost (docs/performance.md).
# Node's compile cache, filled here by loading the service's modules once (with the same flags), spares every start
# the TypeScript stripping and its WebAssembly module: about 30 MB less RSS.
ENV NODE_OPTIONS="--max-semi-space-size=4" \
    NODE_COMPILE_CACHE=/app/.node-compile-cache
RUN node --input-type=module -e 'import { flushCompileCache } from "node:module"; await import("./services/gateway/src/main.ts"); flushCompileCache(); process.exit(0)'
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
CMD ["node", "services/gateway/src/main.ts"]
