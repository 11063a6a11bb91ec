// The failure that ends a download job (recorded as JobFailed), with whether a client may try again.
import { Schema } from "effect"
import { isRetryableFailure } from "@mds/shared/domain/job/JobFailures"
import { JobErrorCode } from "@mds/shared/domain/job/JobEvent"

export class DownloadFailed extends Schema.TaggedError<DownloadFailed>()("DownloadFailed", {
  code: JobErrorCode,
  message: Schema.String,
  /** Told to the client: queueing the same download again may succeed. */
  retryable: Schema.Boolean,
  /** Worth another run inside this job, after a backoff (a network error, a 5xx or a 429 from the platform). */
  transient: Schema.Boolean,
  /** Extension, for live_not_started: when the stream is announced to begin (epoch ms), when yt-dlp said. */
  startsAt: Schema.optionalKey(Schema.Number)
}) {}

export const jobFailure = (code: JobErrorCode, message: string, transient = false): DownloadFailed =>
  new DownloadFailed({ code, message, retryable: isRetryableFailure(code), transient })

/** Extension: the run found the stream or premiere not begun; the job then waits for it (JobRun.awaitStreamStart). */
export const notBegun = (message: string, startsAt: number | null): DownloadFailed =>
  new DownloadFailed({
    code: "live_not_started",
    message,
    retryable: isRetryableFailure("live_not_started"),
    transient: false,
    ...(startsAt === null ? {} : { startsAt })
  })
