// What the resolve's ffprobe learned about a direct file, written into the stored info where yt-dlp left it unknown.
import type { MediaProbeResult } from "../../ytdlp/MediaProbeResult.ts"
import type { InfoObject } from "./downloadableInfo.ts"

const unknown = (value: unknown) => value === undefined || value === null

/** Only what yt-dlp did not say is filled in; "none" is yt-dlp's own word for a stream the format does not have. */
const filled = (format: InfoObject, probe: MediaProbeResult): InfoObject => ({
  ...format,
  ...(unknown(format["vcodec"]) ? { vcodec: probe.hasVideo ? (probe.videoCodec ?? "unknown") : "none" } : {}),
  ...(unknown(format["acodec"]) ? { acodec: probe.hasAudio ? (probe.audioCodec ?? "unknown") : "none" } : {}),
  ...(unknown(format["height"]) && probe.height !== null ? { height: probe.height } : {})
})

/**
 * A download from the stored info then announces the file's streams and length as a platform's formats do, so its
 * finished file needs no second probe (FileProbeNeed). Only the probed direct file (`probedUrl`) is filled in: a probe
 * of an HLS or DASH manifest says nothing about one variant. A probe that found neither video nor audio (a still
 * image) changes nothing.
 */
export const withProbedStreams = (info: InfoObject, probedUrl: string | null, probe: MediaProbeResult | null): InfoObject => {
  if (probe === null || probedUrl === null || !(probe.hasVideo || probe.hasAudio)) return info
  const formats = Array.isArray(info["formats"]) ? (info["formats"] as ReadonlyArray<unknown>) : null
  const isProbed = (format: unknown): format is InfoObject =>
    typeof format === "object" && format !== null && (format as InfoObject)["url"] === probedUrl
  const duration = unknown(info["duration"]) && probe.durationSeconds !== null ? { duration: probe.durationSeconds } : {}
  if (formats === null || formats.length === 0) return isProbed(info) ? { ...filled(info, probe), ...duration } : info
  if (!formats.some(isProbed)) return info
  return { ...info, ...duration, formats: formats.map((format) => (isProbed(format) ? filled(format, probe) : format)) }
}
