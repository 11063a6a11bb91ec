// Events of the job aggregate, one JetStream subject per job: mds.job.<projectId>.<jobId>.
import { Schema } from "effect"
import { DownloadOptions } from "./DownloadOptions.ts"

/** Schema version carried by every event so that old streams stay readable after changes. */
const V1 = Schema.Literal(1)
const EpochMillis = Schema.Number

export const JobErrorCode = Schema.Literals([
  "media_unavailable",
  "unsupported_platform",
  "format_unavailable",
  "url_not_allowed",
  "download_failed",
  "job_expired",
  "internal_error",
  // Limits of one job (MAX_MEDIA_DURATION_SECONDS, MAX_FILE_SIZE_MB, DOWNLOAD_TIMEOUT_SECONDS).
  "media_too_long",
  "file_too_large",
  "download_timeout",
  // The job's worker died (or lost NATS) on every one of its allowed runs.
  "attempts_exhausted",
  // Extension: the project's client canceled the job (DELETE /v1/jobs/{jobId}).
  "canceled",
  // Extension: the requested clip section lies outside the media (known only once the extractor read it).
  "section_out_of_range",
  // Extension: a subtitle language the job asked for is not offered by the media.
  "subtitles_unavailable",
  // Extension: the file would have taken the project past its downloaded-bytes quota for the month.
  "quota_exceeded"
])
export type JobErrorCode = typeof JobErrorCode.Type

export const JobError = Schema.Struct({
  code: JobErrorCode,
  message: Schema.String,
  retryable: Schema.Boolean
})
export type JobError = typeof JobError.Type

/** Where the job's media comes from: always a URL, plus the media id when queued after a resolve. */
export const JobSource = Schema.Struct({
  url: Schema.String,
  mediaId: Schema.NullOr(Schema.String)
})
export type JobSource = typeof JobSource.Type

/** The stored file, as the worker put it into the ArtifactStore. */
export const JobArtifact = Schema.Struct({
  key: Schema.String,
  filename: Schema.String,
  mimeType: Schema.String,
  sizeBytes: Schema.Number,
  /** Epoch ms until which the artifact is kept and its download link is valid. */
  availableUntil: EpochMillis
})
export type JobArtifact = typeof JobArtifact.Type

/** Extension: the batch entry a job downloads, when a batch queued it. */
export const JobBatchEntry = Schema.Struct({ batchId: Schema.String, entryId: Schema.String })
export type JobBatchEntry = typeof JobBatchEntry.Type

export const JobQueued = Schema.TaggedStruct("JobQueued", {
  v: V1,
  jobId: Schema.String,
  projectId: Schema.String,
  platform: Schema.String,
  format: Schema.String,
  source: JobSource,
  createdAt: EpochMillis,
  expiresAt: EpochMillis,
  /** Extension: present only when the client asked for a clip or an output preset. */
  options: Schema.optionalKey(DownloadOptions),
  /** Extension: the batch entry this job downloads, when a batch queued it. */
  batch: Schema.optionalKey(JobBatchEntry)
})
export type JobQueued = typeof JobQueued.Type

export const JobStarted = Schema.TaggedStruct("JobStarted", {
  v: V1,
  jobId: Schema.String,
  attempt: Schema.Number,
  workerId: Schema.String,
  at: EpochMillis
})
export type JobStarted = typeof JobStarted.Type

export const JobProgressed = Schema.TaggedStruct("JobProgressed", {
  v: V1,
  jobId: Schema.String,
  /** Integer percent, 0 to 100. */
  percent: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })),
  at: EpochMillis
})
export type JobProgressed = typeof JobProgressed.Type

export const JobCompleted = Schema.TaggedStruct("JobCompleted", {
  v: V1,
  jobId: Schema.String,
  artifact: JobArtifact,
  /** The platform of the extractor that handled the download, when it differs from JobQueued's (a job by URL). */
  platform: Schema.optional(Schema.String),
  at: EpochMillis
})
export type JobCompleted = typeof JobCompleted.Type

export const JobFailed = Schema.TaggedStruct("JobFailed", {
  v: V1,
  jobId: Schema.String,
  error: JobError,
  at: EpochMillis
})
export type JobFailed = typeof JobFailed.Type

export const JobExpired = Schema.TaggedStruct("JobExpired", {
  v: V1,
  jobId: Schema.String,
  at: EpochMillis
})
export type JobExpired = typeof JobExpired.Type

/** Extension: a client of the job's project canceled it while it was queued or processing; the job ends failed. */
export const JobCanceled = Schema.TaggedStruct("JobCanceled", {
  v: V1,
  jobId: Schema.String,
  at: EpochMillis
})
export type JobCanceled = typeof JobCanceled.Type

/** Who queued a failed job again: the automatic retries (JOB_AUTO_RETRIES) or a client (POST /v1/jobs/{jobId}/retry). */
export const JobRetriedBy = Schema.Literals(["automatic", "client"])
export type JobRetriedBy = typeof JobRetriedBy.Type

/**
 * Extension: a failed job whose failure was retryable (JobFailures.ts) is queued again, as a new try of the same job:
 * the one event that reopens an ended job. Its runs go on counting attempts from where the failed try left them.
 */
export const JobRetried = Schema.TaggedStruct("JobRetried", {
  v: V1,
  jobId: Schema.String,
  /** 1 for the job's first retry, 2 for its second, ... */
  retry: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  /** Runs started before this retry (the job's attempt then): the next run is attempt + 1. */
  attempt: Schema.Int,
  by: JobRetriedBy,
  at: EpochMillis
})
export type JobRetried = typeof JobRetried.Type

/** The error a canceled job shows: it ends failed with error.code canceled. */
export const CANCELED_ERROR: JobError = {
  code: "canceled",
  message: "The job was canceled by a client of its project.",
  // A client's decision: nothing retries it (JobFailures.ts); the client queues the download again if it changes its mind.
  retryable: false
}

export const JobEvent = Schema.Union([JobQueued, JobStarted, JobProgressed, JobCompleted, JobFailed, JobExpired, JobCanceled, JobRetried])
export type JobEvent = typeof JobEvent.Type

/** A job event from a message's JSON, or none when it does not decode (consumers step over such messages). */
export const decodeJobEventJson = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))
