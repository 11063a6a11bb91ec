// A resolved media or playlist by id, as the asking project may see it: everything else is 404 media_not_found.
import { currentMedia } from "@mds/shared/application/media/MediaFacts"
import { MediaNotFound } from "@mds/shared/domain/DomainErrors"
import { isMediaVisibleTo } from "@mds/shared/domain/media/MediaVisibility"
import { MediaId } from "@mds/shared/ids/Ids"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { Clock, Effect, Option, Schema } from "effect"

const isMediaId = Schema.is(MediaId)

/**
 * Malformed, unknown, expired and other projects' media (resolved with their cookies) answer alike, so the answer
 * never tells that such a media exists. Downloads and batches by `media_id` both start here.
 */
export const visibleMedia = Effect.fn("visibleMedia")(function* (mediaId: string, projectId: string) {
  if (!isMediaId(mediaId)) return yield* new MediaNotFound({ mediaId })
  const now = yield* Clock.currentTimeMillis
  let media = yield* (yield* MediaReadModel).get(mediaId)
  if (Option.isNone(media)) {
    // Read-your-writes: the media was resolved a moment ago and is not projected yet.
    media = Option.fromNullishOr((yield* currentMedia(mediaId)).state)
  }
  if (Option.isNone(media) || !isMediaVisibleTo(media.value, projectId, now)) return yield* new MediaNotFound({ mediaId })
  return media.value
})
