// GET /v1/openapi.json: the generated OpenAPI document, built once per process (it depends only on the code).
import { Readable } from "node:stream"
import { Effect } from "effect"
import type { RouteReply } from "../http/Route.ts"
import { buildOpenApiDocument } from "./OpenApiDocument.ts"

/** The version of the document within /v1: raised when operations or fields are added. */
export const API_DOCUMENT_VERSION = "1.0.0"

let rendered: Buffer | null = null

const documentBytes = (): Buffer => {
  rendered ??= Buffer.from(JSON.stringify(buildOpenApiDocument({ version: API_DOCUMENT_VERSION })))
  return rendered
}

export const serveOpenApi = () =>
  Effect.sync((): RouteReply => {
    const body = documentBytes()
    return {
      _tag: "File",
      body: Readable.from([body]),
      headers: {
        "content-type": "application/json; charset=utf-8",
        "content-length": String(body.length),
        "cache-control": "public, max-age=300"
      }
    }
  })
