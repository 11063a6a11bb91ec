// Which job failures are worth another attempt: one table, reviewed against what each error code really means.
import type { JobErrorCode } from "./JobEvent.ts"

/**
 * Retryable: the failure depends on the moment (the network, a platform's 5xx or throttling, a timeout, a worker that
 * crashed or an internal fault), so the same download may succeed later. Not retryable: the media or the request is
 * the cause (gone or private, unsupported, a format, section or subtitle not offered, over a limit, not allowed) or a
 * client decided (canceled); trying again would fail the same way or undo a decision.
 */
export const RETRYABLE_FAILURES: Readonly<Record<JobErrorCode, boolean>> = {
  // network errors, HTTP 5xx and 429 from the platform, a connection reset mid-file
  download_failed: true,
  download_timeout: true,
  internal_error: true,
  // the job's worker crashed (or lost NATS) on every run it was allowed
  attempts_exhausted: true,
  // the job waited past its lifetime (a queue that was full, a fleet that was down): queuing it again may succeed
  job_expired: true,
  media_unavailable: false,
  unsupported_platform: false,
  format_unavailable: false,
  url_not_allowed: false,
  media_too_long: false,
  file_too_large: false,
  section_out_of_range: false,
  subtitles_unavailable: false,
  // the month's byte quota would be crossed: the same file would cross it again until the month resets
  quota_exceeded: false,
  canceled: false,
  // a live recording's worker died: recording again (from now) may succeed
  recording_interrupted: true,
  // the project's other recordings hold every recording place: one may have ended by the next try
  live_recordings_exceeded: true,
  // the stream never began (or could not be read): queuing the same URL again schedules a new wait instead
  live_not_started: false,
  // The file was stored but not delivered. The delivery already retried what was worth it (DELIVERY_RETRY_DELAYS); a
  // new try would download the media again for a destination that refused or stayed unreachable: the project fixes
  // the destination and queues the download again.
  destination_unreachable: false,
  destination_failed: false,
  destination_denied: false,
  destination_missing: false
}

export const isRetryableFailure = (code: JobErrorCode): boolean => RETRYABLE_FAILURES[code]
