// ffprobe and ffmpeg on remote media, confined to the egress proxy: stream facts and generated thumbnails.
import { Context, Effect, Layer, Schema } from "effect"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { Confinement, type ConfinementShape } from "../sandbox/Confinement.ts"
import { runConfinedTool } from "../sandbox/ConfinedTool.ts"
import { FfprobeOutput, type MediaProbeResult, summarizeProbe } from "../ytdlp/MediaProbeResult.ts"

export class FfmpegFailed extends Schema.TaggedError<FfmpegFailed>()("FfmpegFailed", {
  tool: Schema.String,
  message: Schema.String
}) {}

const OUTPUT_LIMIT = 8 * 1024 * 1024
/** How long a run that reads a remote server may take (a probe, a thumbnail). */
export const NETWORK_TIMEOUT_MS = 60_000

/**
 * `timeoutMs`: the network runs' deadline, or null for a run on the service's own files (a remux takes as long as the
 * file is long; the job's deadline and cancel bound it).
 */
const run = (
  confinement: ConfinementShape,
  tool: string,
  args: ReadonlyArray<string>,
  url: string,
  proxyUrl: string | null,
  timeoutMs: number | null
) => {
  // Only http(s) URLs are handed over (never a local path or another protocol); -http_proxy carries the proxy,
  // and the HLS demuxer passes it on to the playlists and segments it opens. The one exception is a run on a file
  // (no proxy, so no network at all), which names a file the service itself wrote and allows no protocol but "file".
  if (!(proxyUrl === null ? url.startsWith("file:/") : /^https?:\/\//i.test(url)))
    return Effect.fail(new FfmpegFailed({ tool, message: `refusing to open a non-http input: ${url.slice(0, 100)}` }))
  return runConfinedTool(
    confinement,
    tool,
    args,
    { proxyUrl, outputLimit: OUTPUT_LIMIT, timeoutMs },
    (message) => new FfmpegFailed({ tool, message })
  )
}

/**
 * The protocols ffmpeg may open for a remote input: the input's own scheme, what it needs to reach the egress proxy,
 * and the demuxers' wrappers. Never file, data, concat, subfile, udp, rtmp and the like, and `httpproxy` only where
 * ffmpeg needs it itself: an https input is tunnelled through the proxy by `tls` over `httpproxy` (a CONNECT the
 * proxy judges). For an http input, `httpproxy` could only ever be a manifest's own choice: a direct TCP connection
 * with an attacker's CONNECT line, so it is not allowed. ffmpeg's HLS and DASH demuxers only accept URIs whose
 * protocol starts with "http" (or file/data), so `tcp` here is reachable only as the proxy's transport.
 */
export const protocolWhitelist = (url: string): string =>
  /^https:/i.test(url) ? "https,tls,http,tcp,crypto,hls,httpproxy" : "http,tcp,crypto,hls"

const networkInput = (url: string, proxyUrl: string) => ["-protocol_whitelist", protocolWhitelist(url), "-http_proxy", proxyUrl]

const decodeProbe = Schema.decodeUnknownEffect(Schema.fromJsonString(FfprobeOutput))

export interface FfmpegShape {
  probe(url: string, proxyUrl: string): Effect.Effect<MediaProbeResult, FfmpegFailed>
  /** Probes a file the service produced (an absolute path); nothing but the local file can be opened. */
  probeFile(path: string): Effect.Effect<MediaProbeResult, FfmpegFailed>
  /** A JPEG for media without one: a frame of a video, an audio file's embedded cover, or a waveform picture of audio. */
  thumbnail(
    url: string,
    kind: "video" | "audio" | "cover",
    outputPath: string,
    proxyUrl: string,
    durationSeconds: number | null
  ): Effect.Effect<void, FfmpegFailed>
  /** Copies a file the service produced into another container (`-c copy`, no network): a lost recording's parts. */
  remuxFile(inputPath: string, outputPath: string, container: "mp4" | "ipod"): Effect.Effect<void, FfmpegFailed>
}

const summarize = (stdout: string) =>
  decodeProbe(stdout).pipe(
    Effect.mapError((e) => new FfmpegFailed({ tool: "ffprobe", message: e.message })),
    Effect.map(summarizeProbe)
  )

/** `networkTimeoutMs`: the deadline of runs that read a remote server (NETWORK_TIMEOUT_MS unless a test sets a shorter one). */
export const makeFfmpeg = (
  ffmpegPath: string,
  ffprobePath: string,
  confinement: ConfinementShape,
  networkTimeoutMs: number = NETWORK_TIMEOUT_MS
): FfmpegShape => ({
  probe: (url, proxyUrl) =>
    run(
      confinement,
      ffprobePath,
      ["-v", "error", ...networkInput(url, proxyUrl), "-print_format", "json", "-show_format", "-show_streams", url],
      url,
      proxyUrl,
      networkTimeoutMs
    ).pipe(Effect.flatMap(summarize)),
  probeFile: (path) => {
    const input = `file:${path}`
    return run(
      confinement,
      ffprobePath,
      ["-v", "error", "-protocol_whitelist", "file", "-print_format", "json", "-show_format", "-show_streams", input],
      input,
      null,
      null
    ).pipe(Effect.flatMap(summarize))
  },
  thumbnail: (url, kind, outputPath, proxyUrl, durationSeconds) => {
    const seek = durationSeconds !== null && durationSeconds > 2 ? Math.min(5, durationSeconds / 3) : 0
    const input = [...networkInput(url, proxyUrl), "-i", url]
    const args =
      kind === "video"
        ? ["-ss", seek.toFixed(2), ...input, "-frames:v", "1", "-vf", "scale=480:-2", "-q:v", "4"]
        : kind === "cover"
          ? [...input, "-map", "0:v:0", "-frames:v", "1", "-vf", "scale=480:-2", "-q:v", "4"]
          : [...input, "-filter_complex", "showwavespic=s=640x240:colors=0x3b82f6", "-frames:v", "1", "-q:v", "4"]
    return run(
      confinement,
      ffmpegPath,
      ["-hide_banner", "-loglevel", "error", "-nostdin", "-y", ...args, "-f", "image2", outputPath],
      url,
      proxyUrl,
      networkTimeoutMs
    ).pipe(Effect.asVoid)
  },
  remuxFile: (inputPath, outputPath, container) => {
    const input = `file:${inputPath}`
    return run(
      confinement,
      ffmpegPath,
      [
        "-hide_banner",
        "-loglevel",
        "error",
        "-nostdin",
        "-y",
        "-protocol_whitelist",
        "file",
        "-i",
        input,
        "-map",
        "0",
        "-c",
        "copy"
      ].concat(["-f", container, outputPath]),
      input,
      null,
      null
    ).pipe(Effect.asVoid)
  }
})

export class Ffmpeg extends Context.Service<Ffmpeg, FfmpegShape>()("mds/extractor/Ffmpeg") {
  static readonly layer = Layer.effect(
    Ffmpeg,
    Effect.gen(function* () {
      const { ffmpegPath, ffprobePath } = yield* ExtractorConfig
      return Ffmpeg.of(makeFfmpeg(ffmpegPath, ffprobePath, yield* Confinement))
    })
  )
}
