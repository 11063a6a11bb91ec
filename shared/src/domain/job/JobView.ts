// The job read model document and its projection: evolve(doc | null, event), replayable from the stream.
import { Schema } from "effect"
import { DownloadOptions } from "./DownloadOptions.ts"
import { JobArtifact, JobBatchEntry, JobError, type JobEvent, JobRetriedBy, JobSource } from "./JobEvent.ts"
import { evolveJob } from "./JobState.ts"

export const JobViewStatus = Schema.Literals(["queued", "processing", "completed", "failed", "expired"])
export type JobViewStatus = typeof JobViewStatus.Type

/** The job's latest retry (JobRetried): how many there were, and after how many runs the latest one came. */
export const JobRetry = Schema.Struct({
  /** Retries so far (the latest JobRetried's number). */
  number: Schema.Number,
  /** Runs started before the latest retry: the current try's runs are `attempt - afterAttempt`. */
  afterAttempt: Schema.Number,
  by: JobRetriedBy,
  at: Schema.Number
})
export type JobRetry = typeof JobRetry.Type

export const JobView = Schema.Struct({
  id: Schema.String,
  projectId: Schema.String,
  status: JobViewStatus,
  progress: Schema.Number,
  platform: Schema.String,
  requestedFormat: Schema.String,
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
  /** Stream sequence of the last event folded in; lets a projection skip redelivered events. */
  lastSeq: Schema.Number
})
export type JobView = typeof JobView.Type

/**
 * Folds one event into the document: the job's one evolve (`evolveJob`), stamped with the event's stream sequence. An
 * event at or below the document's lastSeq was already applied and changes nothing, so redelivery is harmless.
 */
export const evolveJobView = (doc: JobView | null, event: JobEvent, seq: number): JobView | null => {
  if (doc !== null && seq <= doc.lastSeq) return doc
  const next = evolveJob(doc, event)
  return next === null ? null : { ...next, lastSeq: seq }
}

/** A job is visible to clients until its lifetime ends, whatever its status. */
export const isJobVisible = (doc: JobView, now: number): boolean => doc.status !== "expired" && now < doc.expiresAt
