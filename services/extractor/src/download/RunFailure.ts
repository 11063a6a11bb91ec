// How a yt-dlp run of a job ended, as the job sees it: the failure a failed run stands for, and the checks on a run
// that exited well (no hop refused, a file reported).
import { Effect, Schema } from "effect"
import type { EgressRefusal } from "../egress/EgressProxy.ts"
import { classifyFailure, failureMessage, refusalMessage, refusedHopMessage } from "../ytdlp/classifyFailure.ts"
import type { AnnouncedMedia } from "../ytdlp/InfoLine.ts"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { storedUrlRefused } from "../ytdlp/storedUrlRefused.ts"
import { type DownloadFailed, jobFailure, notBegun } from "./DownloadFailed.ts"
import type { MediaSource } from "./FetchOptions.ts"

/** A run from stored info whose media URLs were refused (expired or re-signed): only a fresh extraction can help. */
export class StoredUrlsRefused extends Schema.TaggedError<StoredUrlsRefused>()("StoredUrlsRefused", {
  message: Schema.String
}) {}

/**
 * What a failed run from `source` stands for; `refusals` are the hops the run's egress proxy refused, `announced` what
 * yt-dlp said of the media before it failed. A stream or premiere that has not begun (yt-dlp announced it upcoming, or
 * said so in its error) is no failure of the job's: the job waits for it (JobRun.awaitStreamStart).
 */
export const failedRun =
  (source: MediaSource, refusals: ReadonlyArray<EgressRefusal>, announced: () => AnnouncedMedia | null) =>
  (error: { readonly stderr: string }): DownloadFailed | StoredUrlsRefused => {
    const upcoming = announced()?.upcoming ?? null
    if (upcoming !== null) return notBegun(failureMessage(error.stderr), upcoming.startsAt)
    const refusedByProxy = refusals.length > 0
    if (source._tag === "StoredInfo" && !refusedByProxy && storedUrlRefused(error.stderr)) {
      return new StoredUrlsRefused({ message: failureMessage(error.stderr) })
    }
    const code = classifyFailure(error.stderr, refusedByProxy)
    switch (code) {
      case "url_not_allowed":
        return jobFailure(code, refusalMessage(refusals, error.stderr))
      case "transient":
        return jobFailure("download_failed", failureMessage(error.stderr), true)
      case "failed":
        return jobFailure("download_failed", failureMessage(error.stderr))
      case "live_not_started":
        return notBegun(failureMessage(error.stderr), null)
      default:
        return jobFailure(code, failureMessage(error.stderr))
    }
  }

/**
 * The file a run that exited well made. A hop refused during it (an init section or a key yt-dlp went on without)
 * fails the job too: what was made without it is not the media the client asked for.
 */
export const finishedRun = (
  refusals: ReadonlyArray<EgressRefusal>,
  result: DownloadedFile | null
): Effect.Effect<DownloadedFile, DownloadFailed> => {
  if (refusals.length > 0) return Effect.fail(jobFailure("url_not_allowed", refusedHopMessage(refusals)))
  if (result === null) return Effect.fail(jobFailure("download_failed", "the extractor reported no output file"))
  return Effect.succeed(result)
}
