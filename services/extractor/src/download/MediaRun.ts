// One yt-dlp run of a job's media from a source, through the egress proxy with the project's cookies, paced and
// impersonating where the platform needs it; its limits judged while it runs, its file converted and judged after.
import { Context, Effect, Layer } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { timed, ytDlpDuration } from "@mds/shared/observability/Metrics"
import { Impersonation } from "../antibot/Impersonation.ts"
import { RunAccess } from "../egress/RunAccess.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformPacing } from "../pacing/PlatformPacing.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { ClipCut } from "./clip/ClipCut.ts"
import { ConvertMedia } from "./ConvertMedia.ts"
import { clipStartsOf, type FetchOptions, impersonatesNothing, type MediaSource } from "./FetchOptions.ts"
import { type JobLimits, withoutByteCaps } from "./JobLimits.ts"
import { failedRun, finishedRun } from "./RunFailure.ts"
import { mediaRunFlags, sourceArguments } from "./RunFlags.ts"
import { watchRunOutput } from "./RunOutput.ts"

export class MediaRun extends Context.Service<MediaRun>()("mds/extractor/MediaRun", {
  make: Effect.gen(function* () {
    const ytdlp = yield* YtDlp
    const config = yield* ExtractorConfig
    const impersonation = yield* Impersonation
    const access = yield* RunAccess
    const pacing = yield* PlatformPacing
    const convert = yield* ConvertMedia
    const clips = yield* ClipCut
    const serverLimits: JobLimits = { maxDurationSeconds: config.maxDurationSeconds, maxFileBytes: config.maxFileBytes }

    const run = Effect.fn("MediaRun.run")(function* (source: MediaSource, spec: FormatSpec, options: FetchOptions, command: DownloadMedia) {
      const { platform } = command
      const limits: JobLimits = { ...serverLimits, quotaBytesLeft: command.quotaBytesLeft ?? null }
      const output = watchRunOutput(options, command.options?.section, limits)
      const { proxy, cookies } = yield* access.open(platform, options.projectId, command.url)
      const flags = mediaRunFlags(spec, command, options, source, proxy.url, config.ffmpegPath, cookies.flags)
      const target = sourceArguments(source)
      // A stored info JSON already holds the formats an impersonated resolve found; the page is extracted again only
      // for a job without one, and that run impersonates when the platform needs it.
      // Every start takes a start key of the platform's pacing (this run's retries and the anti-bot retry included).
      const ran = impersonation.run(platform, (impersonate) =>
        pacing.start(platform, command.jobId).pipe(
          Effect.andThen(
            ytdlp.run(
              target.url,
              { ...flags, ...target.flags, ...impersonate },
              {
                cwd: options.workDir,
                onLine: output.onLine,
                onErrorLine: output.onErrorLine,
                withoutImpersonation: impersonatesNothing(source, impersonate),
                ...(options.live === undefined ? {} : { stopWhen: options.live.stopWhen })
              }
            )
          )
        )
      )
      yield* timed(ytDlpDuration, { operation: "download", platform }, ran).pipe(
        Effect.mapError(failedRun(source, proxy.refusals, output.announced)),
        Effect.raceFirst(output.overLimit),
        Effect.raceFirst(options.live?.refused ?? Effect.never)
      )
      const fetched = yield* finishedRun(proxy.refusals, output.result())
      // A clip of fragmented media arrives as its whole fragments: cut to the section before anything else looks at it.
      const section = command.options?.section
      const clipStarts = clipStartsOf(source)
      const downloaded =
        section === undefined || clipStarts === null ? fetched : yield* clips.cut(fetched, section, clipStarts, output.announced())
      // A recording ended itself at its byte cap; what was in flight when it ended may take it a little past.
      const judged = options.live?.recording() === true ? withoutByteCaps(limits) : limits
      return yield* convert.convert(downloaded, spec, command, output.announced(), judged)
    }, Effect.scoped)

    return { run }
  })
}) {
  /** Converting is part of every run. */
  static readonly layer = Layer.effect(MediaRun, MediaRun.make).pipe(Layer.provide(Layer.mergeAll(ConvertMedia.layer, ClipCut.layer)))
}
