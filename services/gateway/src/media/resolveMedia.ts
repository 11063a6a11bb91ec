// POST /v1/media/resolve: classify and vet the URL, answer from the resolve cache, else ask an extractor over NATS.
import { ResolveRequest as ResolveBodySchema } from "@mds/shared/api/Requests"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { MediaUnavailable, UnsupportedPlatform, UrlNotAllowed } from "@mds/shared/domain/DomainErrors"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { isMediaVisibleTo } from "@mds/shared/domain/media/MediaVisibility"
import { classifyUrl } from "@mds/shared/domain/platform/classifyUrl"
import { requestResolve } from "@mds/shared/nats/ResolveRpcClient"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { Clock, Effect, Option, Result } from "effect"
import { ExtractionFailed, ExtractionTimeout, ServiceUnavailable } from "../http/GatewayErrors.ts"
import { decodeBody, parseHttpUrl } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { PlatformHealthBoard } from "../platforms/PlatformHealthBoard.ts"
import { toMediaResponse } from "./MediaResponse.ts"

// The same schema the OpenAPI document describes.
const ResolveBody = ResolveBodySchema

/** Classification and egress checks shared by resolve and download-by-URL. */
export const vetMediaUrl = Effect.fn("vetMediaUrl")(function* (field: string, raw: string) {
  const url = yield* parseHttpUrl(field, raw)
  const platform = classifyUrl(url)
  if (Result.isFailure(platform)) return yield* platform.failure
  yield* (yield* PlatformHealthBoard).ensureAvailable(platform.success.id)
  const egress = yield* EgressPolicy
  yield* egress.check(url)
  return { url, platform: platform.success }
})

/** The project goes with the request: an extractor uses the project's cookies for the platform, if it stored any. */
export const requestResolution = Effect.fn("requestResolution")(function* (url: string, projectId: string, playlist: boolean) {
  const decoded = yield* requestResolve(playlist ? { url, projectId, playlist } : { url, projectId }).pipe(
    Effect.catchTag("ResolveRpcFailed", (failure): Effect.Effect<never, ExtractionTimeout | ExtractionFailed | ServiceUnavailable> => {
      switch (failure.reason) {
        case "timeout":
          return Effect.fail(new ExtractionTimeout({ message: failure.message }))
        case "unreadable":
          return Effect.fail(new ExtractionFailed({ message: failure.message }))
        default:
          return Effect.fail(new ServiceUnavailable({ message: failure.message }))
      }
    })
  )
  if (decoded._tag === "ResolveSucceeded") return decoded.media
  switch (decoded.code) {
    case "unsupported_platform":
      return yield* new UnsupportedPlatform({ url, message: decoded.message })
    case "media_unavailable":
      return yield* new MediaUnavailable({ url, message: decoded.message })
    case "url_not_allowed":
      return yield* new UrlNotAllowed({ url, message: decoded.message })
    case "extraction_failed":
      return yield* new ExtractionFailed({ message: decoded.message })
    case "extraction_timeout":
      return yield* new ExtractionTimeout({ message: decoded.message })
  }
})

export const resolveMedia = Effect.fn("resolveMedia")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(ResolveBody, input.body)
  const { url } = yield* vetMediaUrl("url", body.url)
  const now = yield* Clock.currentTimeMillis
  const readModel = yield* MediaReadModel
  const cached = yield* readModel.findByUrl(url.href)
  // Media or a playlist another project resolved with its cookies is never served from the cache to anyone else
  // (every page of a playlist is served from here): the project gets a fresh extraction, with its own cookies if it
  // has any. Extension: a playlist resolve and a media resolve of one URL answer differently, so each uses only its kind.
  const playlist = body.playlist !== undefined
  const usable = Option.filter(
    cached,
    (media) => isMediaVisibleTo(media, principal.projectId, now) && (!playlist ? media.type !== "playlist" : media.entries !== undefined)
  )
  const media: MediaResolved = Option.isSome(usable) ? usable.value : yield* requestResolution(url.href, principal.projectId, playlist)
  return json(200, toMediaResponse(media, { offset: body.playlist?.offset ?? 0, limit: body.playlist?.limit ?? 50 }))
})
