// What a download fetches: a media the project may see (by media_id) or a vetted URL, with a format it can have.
import type { DownloadRequest } from "@mds/shared/api/Requests"
import { FormatUnavailable, SubtitlesUnavailable } from "@mds/shared/domain/DomainErrors"
import type { JobSource } from "@mds/shared/domain/job/JobEvent"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { parseSubtitleFormatId } from "@mds/shared/domain/media/SubtitleTrack"
import { Effect, Option } from "effect"
import { InvalidOptions } from "../http/GatewayErrors.ts"
import { vetMediaUrl } from "../media/resolveMedia.ts"
import { visibleMedia } from "../media/visibleMedia.ts"
import { PlatformHealthBoard } from "../platforms/PlatformHealthBoard.ts"

export interface Target {
  readonly source: JobSource
  readonly platform: string
  readonly format: string
  /** Whole seconds when a resolve told (0: the platform did not say), null when downloading by URL. */
  readonly durationSeconds: number | null
  /** Extension: the media's subtitle languages when a resolve told, null when downloading by URL. */
  readonly subtitleLanguages: ReadonlyArray<string> | null
}

/** By `media_id`: only media the project may see (visibleMedia), with a format it offers. */
const targetFromMedia = Effect.fn("targetFromMedia")(function* (mediaId: string, format: string, projectId: string) {
  const media = yield* visibleMedia(mediaId, projectId)
  if (media.type === "playlist") {
    return yield* new InvalidOptions({ message: "media_id: this media is a playlist; download its entries by their url." })
  }
  const subtitleLanguages = (media.subtitles ?? []).map((track) => track.language)
  const subtitleFormat = parseSubtitleFormatId(format)
  if (Option.isSome(subtitleFormat)) {
    if (!subtitleLanguages.includes(subtitleFormat.value)) {
      return yield* new SubtitlesUnavailable({ missing: [subtitleFormat.value], available: subtitleLanguages })
    }
  } else {
    const available = media.formats.map((f) => f.id)
    if (!available.includes(format)) return yield* new FormatUnavailable({ format, available })
  }
  return {
    source: { url: media.url, mediaId },
    platform: media.platform,
    format,
    durationSeconds: media.duration,
    subtitleLanguages
  }
})

const targetFromUrl = Effect.fn("targetFromUrl")(function* (raw: string, format: string) {
  const { platform, url } = yield* vetMediaUrl("url", raw)
  if (Option.isNone(parseFormatId(format)) && Option.isNone(parseSubtitleFormatId(format))) {
    return yield* new FormatUnavailable({ format, available: [] })
  }
  return { source: { url: url.href, mediaId: null }, platform: platform.id, format, durationSeconds: null, subtitleLanguages: null }
})

/** The schema (oneOf) has already refused bodies with both or neither of media_id and url. */
export const chooseTarget = Effect.fn("chooseTarget")(function* (body: typeof DownloadRequest.Type, projectId: string) {
  if (!("media_id" in body)) return yield* targetFromUrl(body.url, body.format)
  const target = yield* targetFromMedia(body.media_id, body.format, projectId)
  // By URL the platform was checked while vetting it; by media id it is known only now.
  yield* (yield* PlatformHealthBoard).ensureAvailable(target.platform)
  return target
})
