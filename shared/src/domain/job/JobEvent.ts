// Events of the job aggregate, one JetStream subject per job: mds.job.<projectId>.<jobId>.
import { Schema } from "effect"
import { FormatId } from "../media/FormatId.ts"
import { DownloadOptions } from "./DownloadOptions.ts"
import { JobRecordingKept, JobRecordingProgressed, JobRecordingStarted, JobStopRequested, PartialReason } from "./JobRecording.ts"
import { JobAwaitingStart, JobLiveBegan, JobLiveProbed, JobScheduled } from "./JobScheduleEvent.ts"
import { JobBatchEntry, JobSource } from "./JobSource.ts"

export { JobBatchEntry, JobSource } from "./JobSource.ts"
import { DeliveryError, DeliveryTarget } from "./JobDelivery.ts"

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
  "quota_exceeded",
  // Extension: a live recording's worker died mid-recording (JobRecording.ts); what it recorded is lost.
  "recording_interrupted",
  // Extension: the project already records LIVE_RECORDINGS_PER_PROJECT live streams.
  "live_recordings_exceeded",
  // Extension: a scheduled stream or premiere did not begin within LIVE_WAIT_MAX_SECONDS, or five probes in a row failed.
  "live_not_started",
  // Extension: the job's file was stored but could not be delivered into its destination (JobDeliveryFailed).
  "destination_unreachable",
  "destination_denied",
  "destination_missing",
  "destination_failed"
])
export type JobErrorCode = typeof JobErrorCode.Type

export const JobError = Schema.Struct({
  code: JobErrorCode,
  message: Schema.String,
  retryable: Schema.Boolean
})
export type JobError = typeof JobError.Type

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

export const JobQueued = Schema.TaggedStruct("JobQueued", {
  v: V1,
  jobId: Schema.String,
  projectId: Schema.String,
  platform: Schema.String,
  format: FormatId,
  source: JobSource,
  createdAt: EpochMillis,
  expiresAt: EpochMillis,
  /** Extension: present only when the client asked for a clip or an output preset. */
  options: Schema.optionalKey(DownloadOptions),
  /** Extension: the batch entry this job downloads, when a batch queued it. */
  batch: Schema.optionalKey(JobBatchEntry),
  /** The admission claim the job was admitted with (the id its slot carries); absent in jobs queued before claims had ids. */
  claim: Schema.optionalKey(Schema.String)
})
export type JobQueued = typeof JobQueued.Type

export const JobStarted = Schema.TaggedStruct("JobStarted", {
  v: V1,
  jobId: Schema.String,
  attempt: Schema.Number,
  workerId: Schema.String,
  /** The stream sequence of the work message that runs it: the one message a try's runs come from (a redelivery keeps it). */
  work: Schema.optionalKey(Schema.Number),
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
  /** Extension: the file holds less than asked (a recording whose worker was lost: its kept parts joined). */
  partial: Schema.optionalKey(PartialReason),
  at: EpochMillis
})
export type JobCompleted = typeof JobCompleted.Type

/**
 * Extension: a job with a destination stored its file; it stays processing, its slot held, until the file is delivered
 * (JobDelivered, then JobCompleted) or the delivery fails for good (JobDeliveryFailed, then JobFailed).
 */
export const JobStored = Schema.TaggedStruct("JobStored", {
  v: V1,
  jobId: Schema.String,
  artifact: JobArtifact,
  platform: Schema.optional(Schema.String),
  delivery: DeliveryTarget,
  /** Extension: the file holds less than asked (a lost recording's kept parts joined); JobCompleted follows the delivery. */
  partial: Schema.optional(PartialReason),
  at: EpochMillis
})
export type JobStored = typeof JobStored.Type

/** Extension: one delivery attempt failed in a way worth another (the destination unreachable, an I/O error); retried at `retryAt`. */
export const JobDeliveryTried = Schema.TaggedStruct("JobDeliveryTried", {
  v: V1,
  jobId: Schema.String,
  /** 1 for the first failed attempt, 2 for the second, ... */
  attempt: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  error: DeliveryError,
  retryAt: EpochMillis,
  at: EpochMillis
})
export type JobDeliveryTried = typeof JobDeliveryTried.Type

/** Extension: the file and its sidecars are in the destination under `path`; JobCompleted follows in the same append. */
export const JobDelivered = Schema.TaggedStruct("JobDelivered", {
  v: V1,
  jobId: Schema.String,
  destinationId: Schema.String,
  path: Schema.String,
  at: EpochMillis
})
export type JobDelivered = typeof JobDelivered.Type

/**
 * Extension: the delivery failed for good (refused, or its attempts used up); JobFailed with the same code follows in
 * the same append. The stored file stays downloadable until the job's end.
 */
export const JobDeliveryFailed = Schema.TaggedStruct("JobDeliveryFailed", {
  v: V1,
  jobId: Schema.String,
  attempt: Schema.Int.check(Schema.isGreaterThanOrEqualTo(1)),
  error: DeliveryError,
  at: EpochMillis
})
export type JobDeliveryFailed = typeof JobDeliveryFailed.Type

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
  /** The admission claim the retry was admitted with (its own slot); absent in retries recorded before claims had ids. */
  claim: Schema.optionalKey(Schema.String),
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

/**
 * Extension: retention removed the delivered file and its own sidecars from the destination (a subscription keeping its
 * last N entries or its entries newer than D days); the subscription's shared show files stay. Once per job.
 */
export const JobDeliveryRemoved = Schema.TaggedStruct("JobDeliveryRemoved", {
  v: V1,
  jobId: Schema.String,
  destinationId: Schema.String,
  /** The subscription whose retention rule removed it. */
  subscriptionId: Schema.String,
  /** What was removed: the media's path and its sidecars'. */
  paths: Schema.Array(Schema.String),
  at: EpochMillis
})
export type JobDeliveryRemoved = typeof JobDeliveryRemoved.Type

export const JobEvent = Schema.Union([
  JobQueued,
  JobStarted,
  JobProgressed,
  JobCompleted,
  JobFailed,
  JobExpired,
  JobCanceled,
  JobRetried,
  JobRecordingStarted,
  JobRecordingProgressed,
  JobStopRequested,
  JobScheduled,
  JobLiveProbed,
  JobLiveBegan,
  JobStored,
  JobDeliveryTried,
  JobDelivered,
  JobDeliveryFailed,
  JobRecordingKept,
  JobDeliveryRemoved,
  JobAwaitingStart
])
export type JobEvent = typeof JobEvent.Type

/** A job event from a message's JSON, or none when it does not decode (consumers step over such messages). */
export const decodeJobEventJson = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))
