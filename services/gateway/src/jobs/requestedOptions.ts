// Extension: a download's (or batch's) opt-in fields as the job's DownloadOptions, judged against the format and the media.
import { downloadExtensions, type FormatWithExtensions } from "@mds/shared/api/Requests"
import { SectionOutOfRange, SubtitlesUnavailable } from "@mds/shared/domain/DomainErrors"
import { CONTAINERS_OF, type DownloadOptions, sectionOutOfRange } from "@mds/shared/domain/job/DownloadOptions"
import { formatIdOf } from "@mds/shared/domain/media/FormatId"
import { DEFAULT_PATH_TEMPLATE, parsePathTemplate } from "@mds/shared/domain/delivery/PathTemplate"
import { Effect, Result } from "effect"
import { InvalidOptions, InvalidPathTemplate } from "../http/GatewayErrors.ts"

const invalid = (message: string) => Effect.fail(new InvalidOptions({ message: `Options that do not fit: ${message}.` }))

/** Only what the client sent: a plain download has no options at all. */
const optionsOf = (body: FormatWithExtensions): DownloadOptions => ({
  ...(body.section === undefined
    ? {}
    : { section: { start: body.section.start, end: body.section.end, precise: body.section.precise ?? false } }),
  ...(body.video_codec === undefined ? {} : { videoCodec: body.video_codec }),
  ...(body.container === undefined ? {} : { container: body.container }),
  ...(body.audio_bitrate === undefined ? {} : { audioBitrate: body.audio_bitrate }),
  ...(body.mute === undefined ? {} : { mute: body.mute }),
  ...(body.embed_metadata === undefined ? {} : { embedMetadata: body.embed_metadata }),
  ...(body.embed_thumbnail === undefined ? {} : { embedThumbnail: body.embed_thumbnail }),
  ...(body.subtitles === undefined ? {} : { subtitles: [...new Set(body.subtitles)] }),
  ...(body.max_duration === undefined ? {} : { maxDurationSeconds: body.max_duration }),
  ...(body.destination === undefined
    ? {}
    : {
        delivery: {
          destinationId: body.destination.id,
          pathTemplate: body.destination.path ?? DEFAULT_PATH_TEMPLATE,
          sidecars: body.sidecars ?? []
        }
      })
})

/** The delivery fields: a template that parses, sidecars only with a destination, subtitle files only of named languages. */
const checkDelivery = (body: FormatWithExtensions) =>
  Effect.gen(function* () {
    if (body.destination === undefined) {
      if (body.sidecars !== undefined) return yield* invalid("sidecars: only with a destination")
      return
    }
    const parsed = parsePathTemplate(body.destination.path ?? DEFAULT_PATH_TEMPLATE)
    if (Result.isFailure(parsed)) {
      return yield* new InvalidPathTemplate({ message: `destination.path: ${parsed.failure.reason}.` })
    }
    if (body.sidecars?.includes("subtitles") === true && body.subtitles === undefined) {
      return yield* invalid("sidecars: subtitles writes the languages the subtitles field names; name them there")
    }
  })

/**
 * The fields must fit each other and the format: a section that ends after it starts, video fields with a video
 * format, audio_bitrate with a converting audio format, a codec the container can hold, a thumbnail where yt-dlp can
 * embed one. Each field is valid on its own (the schema said so), so a misfit is 422 invalid_options naming the field.
 */
export const requestedOptions = Effect.fnUntraced(function* (body: FormatWithExtensions) {
  const options = optionsOf(body)
  yield* checkDelivery(body)
  if (body.section !== undefined && !(body.section.end > body.section.start)) {
    return yield* invalid(`section.end: must be greater than start (${body.section.start})`)
  }
  // No platform the service records keeps a live stream from its start (yt-dlp's --live-from-start): recordings start now.
  if (body.live_from_start === true) return yield* invalid("live_from_start: no platform here keeps a live stream from its start")
  const spec = body.format
  if (spec.kind === "subtitles") {
    // A subtitles_<lang> download is one WebVTT file: nothing to cut, convert or embed.
    const extra = Object.keys(body).filter((field) => field in downloadExtensions && field !== "destination")
    if (extra.length > 0) return yield* invalid(`${extra[0]}: not with a subtitles format (${formatIdOf(spec)})`)
    return options
  }
  if (spec.kind === "unlisted") return options
  const isVideo = spec.kind === "video"
  if (!isVideo) {
    for (const field of ["video_codec", "container", "mute", "subtitles"] as const) {
      if (body[field] !== undefined) return yield* invalid(`${field}: only for video formats, not ${formatIdOf(spec)}`)
    }
  }
  if (body.audio_bitrate !== undefined && !(spec.kind === "audio" && spec.codec !== "best")) {
    return yield* invalid(`audio_bitrate: only for audio_mp3 and audio_m4a (converted audio), not ${formatIdOf(spec)}`)
  }
  if (body.container !== undefined && body.video_codec !== undefined && !CONTAINERS_OF[body.video_codec].includes(body.container)) {
    return yield* invalid(
      `container: ${body.container} cannot hold ${body.video_codec}; use ${CONTAINERS_OF[body.video_codec].join(" or ")}`
    )
  }
  if (body.embed_thumbnail === true && (body.container === "webm" || (spec.kind === "audio" && spec.codec === "best"))) {
    return yield* invalid(`embed_thumbnail: not possible in ${body.container === "webm" ? "webm" : "audio_best"}`)
  }
  return options
})

/**
 * A section must lie within the media, and subtitles must be offered by it. With a media id both are known now (a
 * duration of 0: the platform did not say); with a URL only the extractor learns them, and the job fails
 * section_out_of_range or subtitles_unavailable instead.
 */
export const checkOptions = (
  options: DownloadOptions,
  durationSeconds: number | null,
  subtitleLanguages: ReadonlyArray<string> | null
): Effect.Effect<void, SectionOutOfRange | SubtitlesUnavailable> => {
  const problem = options.section === undefined ? null : sectionOutOfRange(options.section, durationSeconds)
  if (problem !== null) return Effect.fail(new SectionOutOfRange({ message: problem }))
  const missing = subtitleLanguages === null ? [] : (options.subtitles ?? []).filter((language) => !subtitleLanguages.includes(language))
  if (missing.length > 0) return Effect.fail(new SubtitlesUnavailable({ missing, available: subtitleLanguages ?? [] }))
  return Effect.void
}
