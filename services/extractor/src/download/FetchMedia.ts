// Fetch: downloads a job's media within its limits, from the resolve's stored info when there is one (from the page
// again when its URLs were refused or it is missing), transient failures retried, the whole within the timeout.
import { Context, Effect, Layer, Option, Schedule } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { FormatSpec } from "@mds/shared/domain/media/FormatId"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { countOne, reextractions } from "@mds/shared/observability/Metrics"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"
import { allowedJobUrl, withinDownloadTimeout } from "./FetchGuards.ts"
import type { FetchOptions, MediaSource } from "./FetchOptions.ts"
import { FetchSubtitles } from "./FetchSubtitles.ts"
import { MediaRun } from "./MediaRun.ts"
import { StoredInfoSource } from "./StoredInfoSource.ts"

export class FetchMedia extends Context.Service<
  FetchMedia,
  {
    /** Downloads into `workDir` within the job's limits; the finished file, or the failure that ends the job. */
    fetch(command: DownloadMedia, spec: FormatSpec, options: FetchOptions): Effect.Effect<DownloadedFile, DownloadFailed>
    /** Extension: one subtitle language as a WebVTT file (format subtitles_<language>). */
    fetchSubtitles(command: DownloadMedia, language: string, options: FetchOptions): Effect.Effect<DownloadedFile, DownloadFailed>
  }
>()("mds/extractor/FetchMedia") {
  /** Its runs (MediaRun, FetchSubtitles) and the stored info are its own; RunAccess and the rest come from outside. */
  static readonly layer = Layer.effect(
    FetchMedia,
    Effect.gen(function* () {
      const policy = yield* EgressPolicy
      const config = yield* ExtractorConfig
      const runs = yield* MediaRun
      const subtitles = yield* FetchSubtitles
      const storedInfo = yield* StoredInfoSource

      /** Runs from one source, retrying transient failures with backoff; a refusal of stored URLs ends it at once. */
      const runWithRetries = (source: MediaSource, spec: FormatSpec, options: FetchOptions, command: DownloadMedia) => {
        let tries = 0
        return Effect.suspend(() => {
          tries++
          return runs.run(source, spec, options, command)
        }).pipe(
          Effect.tapError((failure) =>
            failure._tag === "DownloadFailed" && failure.transient && tries <= config.downloadRetries
              ? Effect.logWarning("transient download failure; retrying", { run: tries, message: failure.message })
              : Effect.void
          ),
          Effect.retry({
            // A live recording is not run again: a new run would record from now, over what this one recorded.
            while: (failure) => failure._tag === "DownloadFailed" && failure.transient && options.live?.recording() !== true,
            times: config.downloadRetries,
            schedule: Schedule.exponential(config.downloadRetryBaseMs)
          }),
          Effect.mapError((failure) =>
            failure._tag === "DownloadFailed" && failure.transient
              ? jobFailure("download_failed", `${failure.message} (tried ${tries} times)`)
              : failure
          )
        )
      }

      const fetch = Effect.fn("FetchMedia.fetch")(function* (command: DownloadMedia, spec: FormatSpec, options: FetchOptions) {
        const url = yield* allowedJobUrl(policy, command.url)
        const page = runWithRetries({ _tag: "Page", url }, spec, options, command).pipe(
          // Only runs from stored info are judged this way, so a page run never ends with it.
          Effect.catchTag("StoredUrlsRefused", (refused) => Effect.fail(jobFailure("download_failed", refused.message)))
        )
        const fromPageAgain = (reason: "urls_refused" | "info_missing") =>
          countOne(reextractions, { platform: command.platform, reason }).pipe(Effect.andThen(page))
        const stored =
          command.mediaId === null
            ? Option.none<MediaSource>()
            : yield* storedInfo.sourceOf(command.mediaId, options.workDir, command.options?.section)
        const download = Option.isSome(stored)
          ? runWithRetries(stored.value, spec, options, command).pipe(
              Effect.catchTag("StoredUrlsRefused", (refused) =>
                Effect.logInfo("stored media URLs were refused; extracting from the page once", { reason: refused.message }).pipe(
                  Effect.andThen(fromPageAgain("urls_refused"))
                )
              )
            )
          : command.mediaId === null
            ? page
            : Effect.logInfo("no stored resolve for the media; extracting from the page").pipe(
                Effect.andThen(fromPageAgain("info_missing"))
              )
        // A live recording lasts until it ends or max_duration (LiveRecording), not DOWNLOAD_TIMEOUT_SECONDS.
        return yield* download.pipe(withinDownloadTimeout(config.downloadTimeoutMs, () => options.live?.recording() === true))
      })

      return FetchMedia.of({ fetch, fetchSubtitles: subtitles.fetch })
    })
  ).pipe(Layer.provide(Layer.mergeAll(MediaRun.layer, FetchSubtitles.layer, StoredInfoSource.layer)))
}
