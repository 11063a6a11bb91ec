// GET/HEAD /v1/files/*: the signed link is the credential; streams the artifact as an attachment.
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { contentDisposition } from "@mds/shared/artifacts/ContentDisposition"
import { DownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { Clock, Effect } from "effect"
import { InvalidSignature, LinkExpired } from "../http/GatewayErrors.ts"
import type { RouteInput, RouteReply } from "../http/Route.ts"

const queryString = (value: unknown): string => (typeof value === "string" ? value : "")

export const serveFile = Effect.fn("serveFile")(function* (input: RouteInput) {
  const key = input.params["*"] ?? ""
  const signer = yield* DownloadLinkSigner
  const now = yield* Clock.currentTimeMillis
  const verdict = signer.verify(key, queryString(input.query["expires"]), queryString(input.query["signature"]), now)
  if (verdict === "invalid") return yield* new InvalidSignature()
  if (verdict === "expired") return yield* new LinkExpired()
  const store = yield* ArtifactStore
  const artifact = yield* store.open(key)
  const headers = {
    "content-type": artifact.contentType,
    "content-length": String(artifact.sizeBytes),
    "content-disposition": contentDisposition(key.split("/").at(-1) ?? key),
    "cache-control": "private, no-store"
  }
  // For HEAD, fastify's generated HEAD route drains the stream and sends the headers alone.
  return { _tag: "File", body: artifact.body, headers } satisfies RouteReply
})
