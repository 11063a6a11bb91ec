// Extension: whether a finished video must go through ffmpeg once more (codec, container, mute), and with which arguments.
import type { DownloadOptions, VideoCodec, VideoContainer } from "@mds/shared/domain/job/DownloadOptions"

/** What ffprobe found in the file yt-dlp produced (cover art excluded from the video codecs). */
export interface ProducedStreams {
  readonly ext: string
  readonly videoCodecs: ReadonlyArray<string>
  readonly audioCodecs: ReadonlyArray<string>
  readonly subtitleCodecs: ReadonlyArray<string>
}

export interface ConversionPlan {
  readonly ext: VideoContainer
  /** ffmpeg arguments between the input and the output file. */
  readonly args: ReadonlyArray<string>
}

/** ffprobe's codec_name of each codec a client can ask for. */
const PROBED_NAME: Readonly<Record<Exclude<VideoCodec, "any">, string>> = { h264: "h264", vp9: "vp9", av1: "av1" }

/** Fast settings: a job's conversion should take about as long as its download, not many times more. */
const ENCODER: Readonly<Record<Exclude<VideoCodec, "any">, ReadonlyArray<string>>> = {
  h264: ["libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p"],
  vp9: ["libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-b:v", "0", "-crf", "35"],
  av1: ["libsvtav1", "-preset", "10", "-crf", "38", "-pix_fmt", "yuv420p"]
}

const WEBM_AUDIO = ["opus", "vorbis"]

/** Subtitle codecs each container holds; the first is what others are converted to. */
const SUBTITLES_IN: Readonly<Record<VideoContainer, ReadonlyArray<string>>> = {
  mp4: ["mov_text"],
  webm: ["webvtt"],
  mkv: ["subrip", "webvtt", "ass", "ssa"]
}
const SUBTITLE_ENCODER: Readonly<Record<VideoContainer, string>> = { mp4: "mov_text", webm: "webvtt", mkv: "srt" }

/** The codec a job must deliver: the one asked for, VP9 for a webm without one, else whatever the platform served. */
export const wantedCodec = (options: DownloadOptions): Exclude<VideoCodec, "any"> | null => {
  if (options.videoCodec !== undefined) return options.videoCodec === "any" ? null : options.videoCodec
  return options.container === "webm" ? "vp9" : null
}

/**
 * Null when the file already is what the job asked for. Streams are copied unless they must change: `-c:V` names
 * only real video streams, so embedded cover art stays as it is.
 */
export const planConversion = (options: DownloadOptions | undefined, streams: ProducedStreams): ConversionPlan | null => {
  if (options === undefined) return null
  const codec = wantedCodec(options)
  const ext: VideoContainer = options.container ?? (streams.ext === "webm" || streams.ext === "mkv" ? streams.ext : "mp4")
  const recode = codec !== null && streams.videoCodecs.some((name) => name !== PROBED_NAME[codec])
  const dropAudio = options.mute === true && streams.audioCodecs.length > 0
  const keptAudio = options.mute === true ? [] : streams.audioCodecs
  const reencodeAudio = ext === "webm" && keptAudio.some((name) => !WEBM_AUDIO.includes(name))
  const convertSubtitles = streams.subtitleCodecs.some((name) => !SUBTITLES_IN[ext].includes(name))
  if (!recode && !dropAudio && !reencodeAudio && !convertSubtitles && ext === streams.ext) return null
  return {
    ext,
    args: [
      "-map",
      "0",
      "-dn",
      "-c",
      "copy",
      ...(dropAudio ? ["-map", "-0:a"] : []),
      ...(recode && codec !== null ? ["-c:V", ...ENCODER[codec]] : []),
      ...(reencodeAudio ? ["-c:a", "libopus", "-b:a", "128k"] : []),
      ...(convertSubtitles ? ["-c:s", SUBTITLE_ENCODER[ext]] : []),
      ...(ext === "mp4" ? ["-movflags", "+faststart"] : [])
    ]
  }
}
