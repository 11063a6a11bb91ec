// The job read model document: the job's state as stored (folded, stamped with its stream sequence, by evolveJobView in JobState.ts).
import { Schema } from "effect"
import { FormatId } from "../media/FormatId.ts"
import { DownloadOptions } from "./DownloadOptions.ts"
import { JobRecordingView, PartialReason } from "./JobRecording.ts"
import { JobDeliveryView } from "./JobDelivery.ts"
import { JobArtifact, JobBatchEntry, JobError, JobRetriedBy, JobSource } from "./JobEvent.ts"
import { JobSchedule } from "./JobSchedule.ts"

/** Extension: `scheduled` is a download of a stream that has not begun (JobSchedule.ts); it holds no slot. */
export const JobViewStatus = Schema.Literals(["scheduled", "queued", "processing", "completed", "failed", "expired"])
export type JobViewStatus = typeof JobViewStatus.Type

/**
 * The job's latest try after its first (JobRetried, or JobAwaitingStart): how many there were, and after how many runs
 * the latest one came.
 */
export const JobRetry = Schema.Struct({
  /** Retries so far (the latest JobRetried's number). */
  number: Schema.Number,
  /** Runs started before the latest retry: the current try's runs are `attempt - afterAttempt`. */
  afterAttempt: Schema.Number,
  /** Who queued the try: a client, the automatic retries, or the start of a stream its first run found not begun. */
  by: Schema.Union([JobRetriedBy, Schema.Literal("stream_start")]),
  at: Schema.Number
})
export type JobRetry = typeof JobRetry.Type

export const JobView = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  status: JobViewStatus,
  progress: Schema.Number,
  platform: Schema.String,
  /** The format the job was queued with; stored as its id under the document's first name for it, `requestedFormat`. */
  format: FormatId,
  source: JobSource,
  attempt: Schema.Number,
  createdAt: Schema.Number,
  expiresAt: Schema.Number,
  startedAt: Schema.NullOr(Schema.Number),
  completedAt: Schema.NullOr(Schema.Number),
  /**
   * What the download link needs (key, `availableUntil`, file name); the link itself is never stored, but signed where
   * it is answered (`downloadLinkOf`). Documents written before still hold a `downloadUrl`: decoding drops it.
   */
  artifact: Schema.NullOr(JobArtifact),
  error: Schema.NullOr(JobError),
  /** Extension: the clip section and output preset the job was queued with; absent for a plain download. */
  options: Schema.optionalKey(DownloadOptions),
  /** Extension: the batch entry the job downloads, when a batch queued it (what the batch feeder asks of a job). */
  batch: Schema.optionalKey(JobBatchEntry),
  /** Extension: the job's latest retry; absent until it was retried (documents written before decode as never retried). */
  retry: Schema.optionalKey(JobRetry),
  /** The admission claim the current try was admitted with (absent before claims had ids). */
  claim: Schema.optionalKey(Schema.String),
  /** The stream sequence of the work message the current run came from (absent before runs recorded it). */
  work: Schema.optionalKey(Schema.Number),
  /** Extension: the live recording the current run makes, once it found the media live (JobRecording.ts). */
  recording: Schema.optionalKey(JobRecordingView),
  /** Extension: the wait of a job scheduled for a stream that had not begun; absent for every other job. */
  schedule: Schema.optionalKey(JobSchedule),
  /** Extension: the delivery into the job's destination, from the moment its file was stored (JobStored). */
  delivery: Schema.optionalKey(JobDeliveryView),
  /** Extension: why the completed job's file holds less than asked (absent: all of it). */
  partial: Schema.optionalKey(PartialReason),
  /** Stream sequence of the last event folded in; lets a projection skip redelivered events. */
  lastSeq: Schema.Number
}).pipe(Schema.encodeKeys({ format: "requestedFormat" }))
export type JobView = typeof JobView.Type

/** A job is visible to clients until its lifetime ends, whatever its status. */
export const isJobVisible = (doc: JobView, now: number): boolean => doc.status !== "expired" && now < doc.expiresAt
