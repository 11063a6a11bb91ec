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
  /** A URL ffmpeg can read for probing and thumbnail frames (a file, an HLS playlist or a DASH manifest). */
  readonly mediaUrl: string | null
  /** The media is audio with an embedded cover picture: the thumbnail is that picture. */
  readonly hasCover: boolean
  readonly formats: ReadonlyArray<MediaFormat>
}

const AUDIO_EXTENSIONS = new Set(["m4a", "mp3", "aac", "ogg", "oga", "opus", "flac", "wav", "weba"])

/** A codec yt-dlp named: not missing, and not its "none" for a stream the format lacks. */
export const known = (codec: string | null | undefined) => typeof codec === "string" && codec !== "" && codec !== "none"
const absent = (codec: string | null | undefined) => codec === "none"
const text = (value: string | null | undefined) => (typeof value === "string" && value.trim() !== "" ? value.trim() : null)

/** The media entry: the info itself, or the first entry of a playlist answer. */
export const mediaEntry = (info: YtDlpInfo): YtDlpEntry => {
  const first = info.entries?.find((entry) => entry !== null)
  return info._type === "playlist" && first != null ? first : info
}

export const entryFormats = (entry: YtDlpEntry): ReadonlyArray<YtDlpFormat> =>
  entry.formats !== undefined && entry.formats !== null && entry.formats.length > 0
    ? entry.formats
    : [{ url: entry.url, ext: entry.ext, protocol: entry.protocol, vcodec: entry.vcodec, acodec: entry.acodec, height: entry.height }]

/**
 * Audio without video: an HLS audio rendition (EXT-X-MEDIA TYPE=AUDIO) or a DASH audio adaptation set says
 * vcodec "none" while its own codec is often left unknown.
 */
const isAudioOnly = (f: YtDlpFormat) => absent(f.vcodec) && !absent(f.acodec)
const hasVideoTrack = (f: YtDlpFormat) => known(f.vcodec) || (!absent(f.vcodec) && !AUDIO_EXTENSIONS.has((f.ext ?? "").toLowerCase()))

/** yt-dlp often knows nothing about a direct file's streams or length; then ffprobe has to look. */
export const needsProbe = (entry: YtDlpEntry): boolean => {
  const formats = entryFormats(entry)
  const codecsUnknown = formats.every((f) => !known(f.vcodec) && !known(f.acodec))
  return entry.duration == null || entry.duration <= 0 || codecsUnknown
}

const isHttp = (url: string | null | undefined): url is string => typeof url === "string" && /^https?:\/\//i.test(url)

const isDirectHttp = (format: YtDlpFormat) =>
  isHttp(format.url) && (format.protocol == null || format.protocol === "http" || format.protocol === "https")

const isHlsHttp = (format: YtDlpFormat) => isHttp(format.url) && (format.protocol === "m3u8" || format.protocol === "m3u8_native")

const isDashHttp = (format: YtDlpFormat) => isHttp(format.manifest_url) && format.protocol === "http_dash_segments"

/**
 * A URL ffmpeg can read for probing and thumbnails: the best direct file, else the best HLS variant playlist, else
 * the DASH manifest (ffmpeg reads HLS and DASH over http(s) itself, segments included, through the same proxy).
 */
export const probeableUrl = (entry: YtDlpEntry): string | null => {
  const formats = [...entryFormats(entry)].reverse()
  return formats.find(isDirectHttp)?.url ?? formats.find(isHlsHttp)?.url ?? formats.find(isDashHttp)?.manifest_url ?? null
}

const fileNameOf = (url: string) => {
  try {
    const last = new URL(url).pathname
      .split("/")
      .filter((s) => s !== "")
      .at(-1)
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

/** yt-dlp's own ranking of audio codecs (its default format sort), best first. */
const AUDIO_CODEC_RANK = ["flac", "alac", "wav", "opus", "vorbis", "aac", "mp4a", "mp3"]
const codecRank = (codec: string) => {
  const at = AUDIO_CODEC_RANK.findIndex((name) => codec.startsWith(name))
  return at < 0 ? AUDIO_CODEC_RANK.length : at
}

/** The codec of the audio `ba/b` picks: audio-only formats first, by codec rank, then bitrate; ffprobe's as a last resort. */
const bestAudioCodec = (formats: ReadonlyArray<YtDlpFormat>, probe: MediaProbeResult | null): string | null => {
  const audioOnly = formats.filter(isAudioOnly)
  const pool = (audioOnly.length > 0 ? audioOnly : formats).filter((f) => known(f.acodec))
  const ranked = [...pool].sort(
    (a, b) => codecRank(a.acodec ?? "") - codecRank(b.acodec ?? "") || (b.abr ?? b.tbr ?? 0) - (a.abr ?? a.tbr ?? 0)
  )
  return ranked[0]?.acodec ?? probe?.audioCodec ?? null
}

/**
 * The file audio_best delivers: yt-dlp extracts the best audio without re-encoding, so its codec decides the
 * container (Opus stays .opus, an Ogg container; Vorbis .ogg; AAC .m4a).
 */
const audioContainer = (codec: string | null): string => {
  if (codec === null) return "m4a"
  if (codec.startsWith("opus")) return "opus"
  if (codec.startsWith("mp3")) return "mp3"
  if (codec.startsWith("vorbis")) return "ogg"
  if (codec.startsWith("flac")) return "flac"
  return "m4a"
}

/**
 * The file a video download delivers. With a separate audio track yt-dlp merges into mp4 (--merge-output-format);
 * otherwise it keeps the single file it picked, mp4 preferred (-S ext:mp4), so a WebM-only source stays WebM.
 */
const videoContainer = (formats: ReadonlyArray<YtDlpFormat>, height: number | null): string => {
  if (formats.some(isAudioOnly)) return "mp4"
  const fits = formats.filter((f) => hasVideoTrack(f) && (height === null || f.height == null || f.height <= height))
  const exts = fits.map((f) => (f.ext ?? "").toLowerCase()).filter((ext) => ext !== "")
  if (exts.length === 0 || exts.includes("mp4")) return "mp4"
  const tallest = [...fits].sort((a, b) => (b.height ?? 0) - (a.height ?? 0))[0]
  return (tallest?.ext ?? "mp4").toLowerCase()
}

const bestThumbnail = (entry: YtDlpEntry): string | null => {
  const direct = text(entry.thumbnail)
  if (direct !== null) return direct
  const ranked = [...(entry.thumbnails ?? [])].sort((a, b) => (a.preference ?? 0) - (b.preference ?? 0) || (a.width ?? 0) - (b.width ?? 0))
  return text(ranked.at(-1)?.url)
}

export const describeMedia = (info: YtDlpInfo, probe: MediaProbeResult | null, requestedUrl: string): MediaDescription => {
  const entry = mediaEntry(info)
  const formats = entryFormats(entry)
  const extIsAudio = formats.every((f) => AUDIO_EXTENSIONS.has((f.ext ?? "").toLowerCase()))
  const codecsKnown = formats.some((f) => known(f.vcodec) || known(f.acodec))

  const hasVideo =
    probe !== null
      ? probe.hasVideo || formats.some((f) => known(f.vcodec))
      : codecsKnown
        ? formats.some((f) => known(f.vcodec))
        : !extIsAudio && !formats.every((f) => absent(f.vcodec))
  const hasAudio =
    probe !== null
      ? probe.hasAudio || formats.some((f) => known(f.acodec) || isAudioOnly(f))
      : codecsKnown
        ? formats.some((f) => known(f.acodec) || isAudioOnly(f))
        : !formats.every((f) => absent(f.acodec))

  const heights = new Set<number>()
  for (const f of formats) if (!absent(f.vcodec) && typeof f.height === "number" && f.height > 0) heights.add(f.height)
  if (probe?.height != null) heights.add(probe.height)
  const sortedHeights = [...heights].sort((a, b) => b - a)

  const mediaFormats: Array<MediaFormat> = []
  if (hasVideo) {
    const top = sortedHeights[0]
    mediaFormats.push({
      id: "video_best",
      type: "video",
      quality: top === undefined ? "best" : `${top}p`,
      container: videoContainer(formats, null)
    })
    for (const h of sortedHeights)
      mediaFormats.push({ id: videoFormatId(h), type: "video", quality: `${h}p`, container: videoContainer(formats, h) })
  }
  if (hasAudio) {
    mediaFormats.push(
      { id: "audio_best", type: "audio", quality: "best", container: audioContainer(bestAudioCodec(formats, probe)) },
      { id: "audio_mp3", type: "audio", quality: "192k", container: "mp3" },
      { id: "audio_m4a", type: "audio", quality: "best", container: "m4a" }
    )
  }

  const webpageUrl = text(entry.webpage_url) ?? text(info.webpage_url) ?? requestedUrl
  const name =
    text(entry.uploader) ??
    text(entry.channel) ??
    text(entry.creator) ??
    text(entry.creators?.[0]) ??
    text(entry.artist) ??
    probe?.artist ??
    hostOf(webpageUrl)
  const username = text(entry.uploader_id) ?? text(entry.channel_id) ?? name
  const yDuration = typeof entry.duration === "number" && entry.duration > 0 ? entry.duration : null
  const fileName = fileNameOf(webpageUrl)
  // yt-dlp names a direct file after its URL; the file's own title tag (ID3, MP4) says more.
  const ytTitle = text(entry.title) ?? text(entry.fulltitle)
  const title =
    ytTitle !== null && !(ytTitle === fileName && probe?.title != null) ? ytTitle : (probe?.title ?? fileName ?? hostOf(webpageUrl))

  return {
    type: hasVideo ? "video" : "audio",
    title,
    durationSeconds: yDuration ?? probe?.durationSeconds ?? null,
    author: { name, username },
    thumbnail: bestThumbnail(entry),
    webpageUrl,
    mediaUrl: probeableUrl(entry),
    hasCover: !hasVideo && probe?.hasCover === true,
    formats: mediaFormats
  }
}
