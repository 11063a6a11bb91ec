// Extension: puts a finished video into the codec and container its job asked for (local files only, ffprobe + ffmpeg).
import { join } from "node:path"
import { Context, Effect, Layer, Schema } from "effect"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { Confinement, type ConfinementShape } from "../sandbox/Confinement.ts"
import { runConfinedTool } from "../sandbox/ConfinedTool.ts"
import { planConversion, type ProducedStreams } from "./ConversionPlan.ts"

export class ConversionFailed extends Schema.TaggedError<ConversionFailed>()("ConversionFailed", {
  message: Schema.String
}) {}

const ProbedStreams = Schema.Struct({
  streams: Schema.optional(
    Schema.Array(
      Schema.Struct({
        codec_type: Schema.optional(Schema.String),
        codec_name: Schema.optional(Schema.String),
        disposition: Schema.optional(Schema.Struct({ attached_pic: Schema.optional(Schema.Number) }))
      })
    )
  )
})
const decodeProbe = Schema.decodeUnknownEffect(Schema.fromJsonString(ProbedStreams))

const OUTPUT_LIMIT = 1024 * 1024

/**
 * The tool reads and writes only files of the job's own directory ("file" is its only protocol), confined like every
 * media tool and without any network (no proxy), for as long as the file takes: a canceled or timed-out job stops it.
 * Also the runner of a clip's local cut (download/clip/ClipCut.ts).
 */
export const runLocalTool = (confinement: ConfinementShape, tool: string, args: ReadonlyArray<string>) =>
  runConfinedTool(
    confinement,
    tool,
    args,
    { proxyUrl: null, outputLimit: OUTPUT_LIMIT, timeoutMs: null },
    (message) => new ConversionFailed({ message })
  )

export class OutputConversion extends Context.Service<
  OutputConversion,
  {
    /**
     * The file as the job asked for it: the same file when nothing had to change, else a converted one beside it; with
     * how many subtitle tracks it holds (null when no option asked, so nothing was looked at).
     */
    convert(
      file: DownloadedFile,
      options: DownloadOptions | undefined
    ): Effect.Effect<{ readonly file: DownloadedFile; readonly subtitleTracks: number | null }, ConversionFailed>
  }
>()("mds/extractor/OutputConversion") {
  static readonly layer = Layer.effect(
    OutputConversion,
    Effect.gen(function* () {
      const { ffmpegPath, ffprobePath } = yield* ExtractorConfig
      const confinement = yield* Confinement

      const streamsOf = (file: DownloadedFile) =>
        runLocalTool(confinement, ffprobePath, [
          "-v",
          "error",
          "-protocol_whitelist",
          "file",
          "-show_entries",
          "stream=codec_type,codec_name:stream_disposition=attached_pic",
          "-of",
          "json",
          `file:${file.filepath}`
        ]).pipe(
          Effect.flatMap((stdout) => decodeProbe(stdout).pipe(Effect.mapError((e) => new ConversionFailed({ message: e.message })))),
          Effect.map((probed): ProducedStreams => {
            const streams = probed.streams ?? []
            const named = (type: string) =>
              streams.filter((s) => s.codec_type === type && s.disposition?.attached_pic !== 1).map((s) => s.codec_name ?? "?")
            return {
              ext: (file.ext ?? file.filepath.split(".").at(-1) ?? "").toLowerCase(),
              videoCodecs: named("video"),
              audioCodecs: named("audio"),
              subtitleCodecs: named("subtitle")
            }
          })
        )

      const convert = Effect.fn("OutputConversion.convert")(function* (file: DownloadedFile, options: DownloadOptions | undefined) {
        if (options === undefined) return { file, subtitleTracks: null }
        const streams = yield* streamsOf(file)
        const subtitleTracks = streams.subtitleCodecs.length
        const plan = planConversion(options, streams)
        if (plan === null) return { file, subtitleTracks }
        const output = join(file.filepath, "..", `converted.${plan.ext}`)
        yield* runLocalTool(confinement, ffmpegPath, [
          "-hide_banner",
          "-loglevel",
          "error",
          "-nostdin",
          "-y",
          "-protocol_whitelist",
          "file",
          "-i",
          `file:${file.filepath}`,
          ...plan.args,
          `file:${output}`
        ])
        return { file: { ...file, filepath: output, ext: plan.ext }, subtitleTracks }
      })

      return OutputConversion.of({ convert })
    })
  )
}
