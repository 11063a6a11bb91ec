// The failure that ends a download job (recorded as JobFailed), with whether a client may try again.
import { Schema } from "effect"
import { JobErrorCode } from "@mds/shared/domain/job/JobEvent"

export class DownloadFailed extends Schema.TaggedError<DownloadFailed>()("DownloadFailed", {
  code: JobErrorCode,
  message: Schema.String,
  /** Told to the client: queueing the same download again may succeed. */
  retryable: Schema.Boolean,
  /** Worth another run inside this job, after a backoff (a network error, a 5xx or a 429 from the platform). */
  transient: Schema.Boolean
}) {}

/**
 * Permanent failures (the media is gone, private, unsupported, too long, too large, not allowed) fail for good;
 * the others depend on the moment (the network, the platform's load, a worker's life).
 */
const RETRYABLE: Readonly<Record<JobErrorCode, boolean>> = {
  media_unavailable: false,
  unsupported_platform: false,
  format_unavailable: false,
  url_not_allowed: false,
  media_too_long: false,
  file_too_large: false,
  attempts_exhausted: false,
  download_failed: true,
  download_timeout: true,
  job_expired: true,
  internal_error: true,
  canceled: true,
  section_out_of_range: false,
  subtitles_unavailable: false
}

export const jobFailure = (code: JobErrorCode, message: string, transient = false): DownloadFailed =>
  new DownloadFailed({ code, message, retryable: RETRYABLE[code], transient })
