// Pure: the local ffmpeg cut of a clip from the fragments yt-dlp fetched: where in the file the section starts, for the
// video and for the audio, and the arguments that cut it (stream copy, or the video re-encoded for a precise cut).
import type { ClipSection } from "@mds/shared/domain/job/DownloadOptions"
import type { FormatStart } from "./clipInfo.ts"

export interface CutOffsets {
  /** Seconds into the downloaded file where the section starts, on the video's timeline and on the audio's. */
  readonly video: number
  readonly audio: number
}

/**
 * `formatId` is what yt-dlp chose ("v+a" when it merged two formats). Each part of a merge starts at its own first
 * kept fragment and yt-dlp's merger puts each at time 0 (ffmpeg shifts every input to its own start), so the video and
 * the audio of the file are cut at their own offsets, which keeps them in step. Null when yt-dlp chose a format the
 * trimmed info does not know.
 */
export const cutOffsets = (section: ClipSection, starts: ReadonlyMap<string, FormatStart>, formatId: string): CutOffsets | null => {
  const chosen = formatId.split("+").map((id) => starts.get(id))
  if (chosen.length === 0 || chosen.some((start) => start === undefined)) return null
  const known = chosen.filter((start): start is FormatStart => start !== undefined)
  const video = known.find((start) => start.video) ?? known[0]!
  const audio = known.find((start) => start.audio) ?? known[0]!
  return { video: Math.max(0, section.start - video.startSeconds), audio: Math.max(0, section.start - audio.startSeconds) }
}

const seconds = (value: number) => value.toFixed(3)

/**
 * Keyframe cuts copy every stream (as yt-dlp's --download-sections does without --force-keyframes-at-cuts). A precise
 * cut re-encodes the video only (-c:V leaves cover art alone): an audio stream can be cut at any of its frames, a few
 * milliseconds apart, so copying it is as exact and spares it a second lossy encoding.
 */
export const clipCutArgs = (
  input: string,
  output: string,
  ext: string,
  section: ClipSection,
  offsets: CutOffsets
): ReadonlyArray<string> => {
  const duration = seconds(section.end - section.start)
  const from = (offset: number) => ["-protocol_whitelist", "file", "-ss", seconds(offset), "-t", duration, "-i", `file:${input}`]
  const apart = Math.abs(offsets.video - offsets.audio) >= 0.001
  const inputs = apart ? [...from(offsets.video), ...from(offsets.audio)] : from(offsets.video)
  const maps = apart ? ["-map", "0", "-map", "-0:a", "-map", "1:a?"] : ["-map", "0"]
  const videoEncoder =
    ext === "webm"
      ? ["libvpx-vp9", "-deadline", "realtime", "-cpu-used", "8", "-row-mt", "1", "-b:v", "0", "-crf", "35"]
      : ["libx264", "-preset", "veryfast", "-crf", "23", "-pix_fmt", "yuv420p"]
  const codecs = section.precise ? ["-c", "copy", "-c:V", ...videoEncoder] : ["-c", "copy"]
  return ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...inputs, ...maps, ...codecs, `file:${output}`]
}
