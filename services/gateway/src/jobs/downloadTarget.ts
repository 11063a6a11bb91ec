// What a download fetches: a media the project may see (by media_id) or a vetted URL, with a format it can have.
import type { DownloadRequest } from "@mds/shared/api/Requests"
import { FormatUnavailable, SubtitlesUnavailable } from "@mds/shared/domain/DomainErrors"
import type { JobSource } from "@mds/shared/domain/job/JobEvent"
import { type DownloadFormat, formatIdOf } from "@mds/shared/domain/media/FormatId"
import { isUpcoming } from "@mds/shared/domain/media/LiveStatus"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { isMediaVisibleTo } from "@mds/shared/domain/media/MediaVisibility"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { Clock, Effect, Option } from "effect"
import { InvalidOptions } from "../http/GatewayErrors.ts"
import { vetMediaUrl } from "../media/resolveMedia.ts"
import { visibleMedia } from "../media/visibleMedia.ts"
import { PlatformHealthBoard } from "../platforms/PlatformHealthBoard.ts"

export interface Target {
  readonly source: JobSource
  readonly platform: string
  readonly format: DownloadFormat
  /** Whole seconds when a resolve told (0: the platform did not say), null when downloading by URL. */
  readonly durationSeconds: number | null
  /** Extension: the media's subtitle languages when a resolve told, null when downloading by URL. */
  readonly subtitleLanguages: ReadonlyArray<string> | null
  /**
   * Extension: the stream has not begun (is_upcoming), with its announced start (null: not said): the job is
   * scheduled. null for anything else, and for a URL no resolve of this project's view described.
   */
  readonly upcoming: { readonly startsAt: number | null } | null
}

/** An upcoming media's wait: what a download of it is scheduled with. */
const upcomingOf = (media: MediaResolved): Target["upcoming"] => (isUpcoming(media) ? { startsAt: media.releaseAt ?? null } : null)

/** By `media_id`: only media the project may see (visibleMedia), with a format it offers. */
const targetFromMedia = Effect.fn("targetFromMedia")(function* (mediaId: string, format: DownloadFormat, projectId: string) {
  const media = yield* visibleMedia(mediaId, projectId)
  if (media.type === "playlist") {
    return yield* new InvalidOptions({ message: "media_id: this media is a playlist; download its entries by their url." })
  }
  const subtitleLanguages = (media.subtitles ?? []).map((track) => track.language)
  if (format.kind === "subtitles") {
    if (!subtitleLanguages.includes(format.language)) {
      return yield* new SubtitlesUnavailable({ missing: [format.language], available: subtitleLanguages })
    }
  } else {
    const available = media.formats.map((f) => f.id)
    // By its id: a media may offer an id outside the grammar (taken as before; the worker fails it).
    if (!available.includes(formatIdOf(format))) return yield* new FormatUnavailable({ format: formatIdOf(format), available })
  }
  return {
    source: { url: media.url, mediaId },
    platform: media.platform,
    format,
    durationSeconds: media.duration,
    subtitleLanguages,
    upcoming: upcomingOf(media)
  }
})

/**
 * By URL the media is not resolved; only a resolve the project may see of the same URL (the resolve cache) tells that
 * the stream has not begun, and then the job is scheduled as by its media_id.
 */
const targetFromUrl = Effect.fn("targetFromUrl")(function* (raw: string, format: DownloadFormat, projectId: string) {
  const { platform, url } = yield* vetMediaUrl("url", raw)
  if (format.kind === "unlisted") return yield* new FormatUnavailable({ format: format.id, available: [] })
  const now = yield* Clock.currentTimeMillis
  const cached = yield* (yield* MediaReadModel).findByUrl(url.href)
  const resolved = Option.filter(cached, (media) => media.type !== "playlist" && isMediaVisibleTo(media, projectId, now))
  return {
    source: { url: url.href, mediaId: null },
    platform: platform.id,
    format,
    durationSeconds: null,
    subtitleLanguages: null,
    upcoming: Option.isSome(resolved) ? upcomingOf(resolved.value) : null
  }
})

/** The schema (oneOf) has already refused bodies with both or neither of media_id and url. */
export const chooseTarget = Effect.fn("chooseTarget")(function* (body: typeof DownloadRequest.Type, projectId: string) {
  if (!("media_id" in body)) return yield* targetFromUrl(body.url, body.format, projectId)
  const target = yield* targetFromMedia(body.media_id, body.format, projectId)
  // By URL the platform was checked while vetting it; by media id it is known only now.
  yield* (yield* PlatformHealthBoard).ensureAvailable(target.platform)
  return target
})
