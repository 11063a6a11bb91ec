// Extension: the yt-dlp flags of an output preset (codec preference, merge container, audio bitrate, embedded tags).
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import type { YtDlpFlags } from "./YtDlpFlags.ts"

/** yt-dlp's sort names: the platform's own stream of the codec wins when it has one (no conversion needed then). */
const CODEC_SORT = { h264: "vcodec:h264,ext:mp4:m4a", vp9: "vcodec:vp9", av1: "vcodec:av01", any: "res,fps" } as const

const videoFlags = (spec: Extract<FormatSpec, { kind: "video" }>, options: DownloadOptions): YtDlpFlags => {
  const codec = options.videoCodec ?? (options.container === "webm" ? "vp9" : undefined)
  const height = spec.height === null ? "" : `[height<=?${spec.height}]`
  return {
    ...(codec === undefined ? {} : { formatSort: CODEC_SORT[codec] }),
    // Video only when muted (a file with sound in one stream has it removed afterwards).
    ...(options.mute === true ? { format: `bv*${height}/b${height}` } : {}),
    // mkv holds any pair of streams; the conversion step puts them into webm when asked.
    ...(options.container !== undefined && options.container !== "mp4" ? { mergeOutputFormat: "mkv" } : {})
  }
}

/** Added after the format's own flags, so these win where both set the same flag. */
export const presetFlags = (spec: FormatSpec, options: DownloadOptions | undefined): YtDlpFlags => {
  if (options === undefined) return {}
  return {
    ...(spec.kind === "video" ? videoFlags(spec, options) : {}),
    ...(spec.kind === "audio" && options.audioBitrate !== undefined ? { audioQuality: `${options.audioBitrate}K` } : {}),
    ...(options.embedMetadata === true ? { embedMetadata: true } : {}),
    ...(options.embedThumbnail === true ? { embedThumbnail: true, convertThumbnails: "jpg" } : {})
  }
}
