// The job read model document and its projection: evolve(doc | null, event), replayable from the stream.
import { Schema } from "effect"
import { DownloadOptions } from "./DownloadOptions.ts"
import { CANCELED_ERROR, JobArtifact, JobError, type JobEvent, JobSource } from "./JobEvent.ts"

export const JobViewStatus = Schema.Literals(["queued", "processing", "completed", "failed", "expired"])
export type JobViewStatus = typeof JobViewStatus.Type

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
  artifact: Schema.NullOr(JobArtifact),
  error: Schema.NullOr(JobError),
  /** Presigned link to the artifact, filled in by whoever stores the document (evolve leaves it null). */
  downloadUrl: Schema.NullOr(Schema.String),
  /** Extension: the clip section and output preset the job was queued with; absent for a plain download. */
  options: Schema.optionalKey(DownloadOptions),
  /** Stream sequence of the last event folded in; lets a projection skip redelivered events. */
  lastSeq: Schema.Number
})
export type JobView = typeof JobView.Type

const isFinished = (status: JobViewStatus) => status === "completed" || status === "failed" || status === "expired"

/**
 * Folds one event into the document. `seq` is the event's stream sequence: an event at or below
 * the document's lastSeq was already applied and changes nothing, so redelivery is harmless.
 */
export const evolveJobView = (doc: JobView | null, event: JobEvent, seq: number): JobView | null => {
  if (doc !== null && seq <= doc.lastSeq) return doc
  if (event._tag === "JobQueued") {
    if (doc !== null) return doc
    return {
      id: event.jobId,
      projectId: event.projectId,
      status: "queued",
      progress: 0,
      platform: event.platform,
      requestedFormat: event.format,
      source: event.source,
      attempt: 0,
      createdAt: event.createdAt,
      expiresAt: event.expiresAt,
      startedAt: null,
      completedAt: null,
      artifact: null,
      error: null,
      downloadUrl: null,
      lastSeq: seq,
      ...(event.options === undefined ? {} : { options: event.options })
    }
  }
  // Events of a job whose JobQueued was never seen (e.g. trimmed by retention) have nothing to attach to.
  if (doc === null) return null
  if (isFinished(doc.status)) return { ...doc, lastSeq: seq }
  switch (event._tag) {
    case "JobStarted":
      return {
        ...doc,
        status: "processing",
        attempt: Math.max(doc.attempt, event.attempt),
        startedAt: doc.startedAt ?? event.at,
        lastSeq: seq
      }
    case "JobProgressed":
      return { ...doc, progress: Math.max(doc.progress, event.percent), lastSeq: seq }
    case "JobCompleted":
      return {
        ...doc,
        status: "completed",
        progress: 100,
        completedAt: event.at,
        artifact: event.artifact,
        ...(event.platform === undefined ? {} : { platform: event.platform }),
        lastSeq: seq
      }
    case "JobFailed":
      return { ...doc, status: "failed", completedAt: event.at, error: event.error, lastSeq: seq }
    case "JobExpired":
      return { ...doc, status: "expired", completedAt: event.at, lastSeq: seq }
    case "JobCanceled":
      return { ...doc, status: "failed", completedAt: event.at, error: CANCELED_ERROR, lastSeq: seq }
  }
}

/** A job is visible to clients until its lifetime ends, whatever its status. */
export const isJobVisible = (doc: JobView, now: number): boolean => doc.status !== "expired" && now < doc.expiresAt
