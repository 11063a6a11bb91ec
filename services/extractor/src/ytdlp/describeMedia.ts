// Turns yt-dlp's info (plus an ffprobe result when yt-dlp knew too little) into the fields of MediaResolved.
import type { MediaFormat, MediaType } from "@mds/shared/domain/media/MediaEvent"
import { videoFormatId } from "@mds/shared/domain/media/FormatId"
import type { MediaProbeResult } from "./MediaProbeResult.ts"
import type { YtDlpEntry, YtDlpFormat, YtDlpInfo } from "./YtDlpInfo.ts"

export interface MediaDescription {
  readonly type: MediaType
  readonly title: string
  readonly durationSeconds: number | null
  readonly author: { readonly name: string; readonly username: string }
  readonly thumbnail: string | null
  readonly webpageUrl: string
  /** A direct http(s) URL of the media itself, for probing and thumbnail frames; null for manifests. */
  readonly mediaUrl: string | null
  readonly formats: ReadonlyArray<MediaFormat>
}

const AUDIO_EXTENSIONS = new Set(["m4a", "mp3", "aac", "ogg", "oga", "opus", "flac", "wav", "weba"])

const known = (codec: string | null | undefined) => typeof codec === "string" && codec !== "" && codec !== "none"
const absent = (codec: string | null | undefined) => codec === "none"
const text = (value: string | null | undefined) =>
  typeof value === "string" && value.trim() !== "" ? value.trim() : null

/** The media entry: the info itself, or the first entry of a playlist answer. */
export const mediaEntry = (info: YtDlpInfo): YtDlpEntry => {
  const first = info.entries?.find((entry) => entry !== null)
  return info._type === "playlist" && first != null ? first : info
}

export const entryFormats = (entry: YtDlpEntry): ReadonlyArray<YtDlpFormat> =>
  entry.formats !== undefined && entry.formats !== null && entry.formats.length > 0
    ? entry.formats
    : [{ url: entry.url, ext: entry.ext, protocol: entry.protocol, vcodec: entry.vcodec, acodec: entry.acodec, height: entry.height }]

/** yt-dlp often knows nothing about a direct file's streams or length; then ffprobe has to look. */
export const needsProbe = (entry: YtDlpEntry): boolean => {
  const formats = entryFormats(entry)
  const codecsUnknown = formats.every((f) => !known(f.vcodec) && !known(f.acodec))
  return entry.duration == null || entry.duration <= 0 || codecsUnknown
}

const isDirectHttp = (format: YtDlpFormat) =>
  typeof format.url === "string" && /^https?:\/\//i.test(format.url) &&
  (format.protocol == null || format.protocol === "http" || format.protocol === "https")

const isHlsHttp = (format: YtDlpFormat) =>
  typeof format.url === "string" && /^https?:\/\//i.test(format.url) &&
  (format.protocol === "m3u8" || format.protocol === "m3u8_native")

/**
 * A URL ffmpeg can read for probing and thumbnails: the best direct file, else the best HLS variant playlist
 * (ffmpeg reads HLS over http(s) itself, segments included, through the same proxy).
 */
export const probeableUrl = (entry: YtDlpEntry): string | null => {
  const formats = [...entryFormats(entry)].reverse()
  return formats.find(isDirectHttp)?.url ?? formats.find(isHlsHttp)?.url ?? null
}

const fileNameOf = (url: string) => {
  try {
    const last = new URL(url).pathname.split("/").filter((s) => s !== "").at(-1)
    return last === undefined ? null : text(decodeURIComponent(last).replace(/\.[A-Za-z0-9]{1,5}$/, ""))
  } catch {
    return null
  }
}

const hostOf = (url: string) => {
  try {
    return new URL(url).hostname
  } catch {
    return "unknown"
  }
}

const audioContainer = (formats: ReadonlyArray<YtDlpFormat>): string => {
  const codec = formats.map((f) => f.acodec).find(known) ?? ""
  if (codec.startsWith("opus")) return "opus"
  if (codec.startsWith("mp3")) return "mp3"
  if (codec.startsWith("vorbis")) return "ogg"
  if (codec.startsWith("flac")) return "flac"
  return "m4a"
}

const bestThumbnail = (entry: YtDlpEntry): string | null => {
  const direct = text(entry.thumbnail)
  if (direct !== null) return direct
  const ranked = [...(entry.thumbnails ?? [])].sort((a, b) =>
    (a.preference ?? 0) - (b.preference ?? 0) || (a.width ?? 0) - (b.width ?? 0)
  )
  return text(ranked.at(-1)?.url)
}

export const describeMedia = (
  info: YtDlpInfo,
  probe: MediaProbeResult | null,
  requestedUrl: string
): MediaDescription => {
  const entry = mediaEntry(info)
  const formats = entryFormats(entry)
  const extIsAudio = formats.every((f) => AUDIO_EXTENSIONS.has((f.ext ?? "").toLowerCase()))
  const codecsKnown = formats.some((f) => known(f.vcodec) || known(f.acodec))

  const hasVideo = probe !== null
    ? probe.hasVideo || formats.some((f) => known(f.vcodec))
    : codecsKnown
    ? formats.some((f) => known(f.vcodec))
    : !extIsAudio && !formats.every((f) => absent(f.vcodec))
  const hasAudio = probe !== null
    ? probe.hasAudio || formats.some((f) => known(f.acodec))
    : codecsKnown
    ? formats.some((f) => known(f.acodec))
    : !formats.every((f) => absent(f.acodec))

  const heights = new Set<number>()
  for (const f of formats) if (!absent(f.vcodec) && typeof f.height === "number" && f.height > 0) heights.add(f.height)
  if (probe?.height != null) heights.add(probe.height)
  const sortedHeights = [...heights].sort((a, b) => b - a)

  const mediaFormats: Array<MediaFormat> = []
  if (hasVideo) {
    const top = sortedHeights[0]
    mediaFormats.push({ id: "video_best", type: "video", quality: top === undefined ? "best" : `${top}p`, container: "mp4" })
    for (const h of sortedHeights) mediaFormats.push({ id: videoFormatId(h), type: "video", quality: `${h}p`, container: "mp4" })
  }
  if (hasAudio) {
    mediaFormats.push(
      { id: "audio_best", type: "audio", quality: "best", container: audioContainer(formats) },
      { id: "audio_mp3", type: "audio", quality: "192k", container: "mp3" },
      { id: "audio_m4a", type: "audio", quality: "best", container: "m4a" }
    )
  }

  const webpageUrl = text(entry.webpage_url) ?? text(info.webpage_url) ?? requestedUrl
  const name = text(entry.uploader) ?? text(entry.channel) ?? text(entry.creator) ?? text(entry.creators?.[0]) ??
    text(entry.artist) ?? hostOf(webpageUrl)
  const username = text(entry.uploader_id) ?? text(entry.channel_id) ?? name
  const yDuration = typeof entry.duration === "number" && entry.duration > 0 ? entry.duration : null

  return {
    type: hasVideo ? "video" : "audio",
    title: text(entry.title) ?? text(entry.fulltitle) ?? fileNameOf(webpageUrl) ?? hostOf(webpageUrl),
    durationSeconds: yDuration ?? probe?.durationSeconds ?? null,
    author: { name, username },
    thumbnail: bestThumbnail(entry),
    webpageUrl,
    mediaUrl: probeableUrl(entry),
    formats: mediaFormats
  }
}
