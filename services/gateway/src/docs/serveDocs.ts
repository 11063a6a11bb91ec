// GET /docs: the API reference rendered by swagger-ui-dist from /v1/openapi.json, every asset served locally (no CDN).
import { createReadStream } from "node:fs"
import { createRequire } from "node:module"
import { dirname, join } from "node:path"
import { Readable } from "node:stream"
import { Effect } from "effect"
import { RouteNotFound } from "../http/GatewayErrors.ts"
import type { RouteInput, RouteReply } from "../http/Route.ts"

const assetDir = dirname(createRequire(import.meta.url).resolve("swagger-ui-dist/package.json"))

/** Only the files the page loads; nothing else of node_modules is reachable. */
const ASSETS: Readonly<Record<string, string>> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "text/javascript; charset=utf-8",
  "swagger-ui-standalone-preset.js": "text/javascript; charset=utf-8",
  "favicon-32x32.png": "image/png"
}

// The host page only loads the renderer; the content is the generated document.
const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Media Download Service API</title>
<link rel="stylesheet" href="/docs/swagger-ui.css">
<link rel="icon" type="image/png" href="/docs/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="/docs/swagger-ui-bundle.js"></script>
<script src="/docs/swagger-ui-standalone-preset.js"></script>
<script src="/docs/init.js"></script>
</body>
</html>
`

const INIT = `window.ui = SwaggerUIBundle({
  url: "/v1/openapi.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: "StandaloneLayout"
});
`

const text = (body: string, contentType: string): RouteReply => ({
  _tag: "File",
  body: Readable.from([Buffer.from(body)]),
  headers: { "content-type": contentType, "content-length": String(Buffer.byteLength(body)), "cache-control": "no-cache" }
})

export const serveDocsPage = () => Effect.succeed(text(PAGE, "text/html; charset=utf-8"))

export const serveDocsAsset = (input: RouteInput) =>
  Effect.gen(function* () {
    const name = input.params["*"] ?? ""
    if (name === "init.js") return text(INIT, "text/javascript; charset=utf-8")
    const contentType = ASSETS[name]
    if (contentType === undefined) return yield* new RouteNotFound({ method: input.method, path: `/docs/${name}` })
    const reply: RouteReply = {
      _tag: "File",
      body: createReadStream(join(assetDir, name)),
      headers: { "content-type": contentType, "cache-control": "public, max-age=86400" }
    }
    return reply
  })
