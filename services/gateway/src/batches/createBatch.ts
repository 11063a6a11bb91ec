// Extension: POST /v1/batches: record a batch of a playlist's entries; the aggregator's feeder runs it.
import { checkRequestedDestination } from "../jobs/requestedDestination.ts"
import { CreateBatchRequest } from "@mds/shared/api/Batches"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { FormatUnavailable } from "@mds/shared/domain/DomainErrors"
import { batchCommands } from "@mds/shared/application/batch/BatchCommands"
import { formatIdOf, isMediaFormat } from "@mds/shared/domain/media/FormatId"
import { newId } from "@mds/shared/ids/Ids"
import { ensureWithinQuota } from "@mds/shared/application/admission/QuotaCheck"
import { Clock, Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { InvalidOptions } from "../http/GatewayErrors.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { requestedOptions } from "../jobs/requestedOptions.ts"
import { visibleMedia } from "../media/visibleMedia.ts"
import { loadBatchView } from "./BatchView.ts"

/** A batch is made only of a playlist the project may see (visibleMedia): another project's is 404 like an unknown one. */
const playlistOf = Effect.fn("playlistOf")(function* (mediaId: string, projectId: string) {
  const media = yield* visibleMedia(mediaId, projectId)
  if (media.entries === undefined) {
    return yield* new InvalidOptions({ message: 'media_id: not a playlist; resolve the URL with "playlist": {} first.' })
  }
  return { ...media, entries: media.entries }
})

export const createBatch = Effect.fn("createBatch")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(CreateBatchRequest, input.body)
  const playlist = yield* playlistOf(body.media_id, principal.projectId)
  if (!isMediaFormat(body.format)) {
    return yield* new FormatUnavailable({ format: formatIdOf(body.format), available: playlist.formats.map((f) => f.id) })
  }
  // As a single download's; whether a section fits or subtitles exist is known per entry only: its job fails if not.
  const options = yield* requestedOptions(body)
  yield* checkRequestedDestination(principal.projectId, options)
  const chosen = body.entries === undefined ? playlist.entries : body.entries.map((id) => playlist.entries.find((entry) => entry.id === id))
  const unknown = (body.entries ?? []).filter((_, i) => chosen[i] === undefined)
  if (unknown.length > 0) return yield* new InvalidOptions({ message: `entries: not in the playlist: ${unknown.slice(0, 5).join(", ")}.` })
  // A batch over a used-up quota would only wait: refused now. Each entry's job is still admitted within the quotas.
  yield* ensureWithinQuota(principal.projectId)
  const batchId = newId("bat")
  const now = yield* Clock.currentTimeMillis
  const lifetimes = yield* Lifetimes
  yield* batchCommands(principal.projectId, batchId)(
    {
      _tag: "CreateBatch",
      batchId,
      projectId: principal.projectId,
      mediaId: playlist.mediaId,
      platform: playlist.platform,
      format: body.format,
      options,
      entries: [
        ...new Map(
          chosen.flatMap((entry) => (entry === undefined ? [] : [[entry.id, { entryId: entry.id, url: entry.url, title: entry.title }]]))
        ).values()
      ],
      now,
      lifetimeMs: lifetimes.jobMs
    },
    { isNew: true }
  )
  return json(202, yield* loadBatchView(principal.projectId, batchId))
})
