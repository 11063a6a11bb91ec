// What one job adds to its project's usage: counted on the UTC day it was queued, by its status, platform and error.
import { Schema } from "effect"
import { utcDay } from "../admission/Quota.ts"
import { type JobState, jobStatus } from "../job/JobState.ts"

export const UsageStatus = Schema.Literals(["queued", "processing", "completed", "failed", "expired", "canceled"])
export type UsageStatus = typeof UsageStatus.Type

/** A job's share of the usage read model, replaced whenever the job's status changes (never added to). */
export const JobUsage = Schema.Struct({
  projectId: Schema.String,
  jobId: Schema.String,
  /** The UTC day the job was queued, YYYY-MM-DD. */
  day: Schema.String,
  status: UsageStatus,
  platform: Schema.String,
  /** The failure's code for a failed job, else null. */
  errorCode: Schema.NullOr(Schema.String),
  /** The stored file's size for a completed job, else 0. */
  bytes: Schema.Number,
  /** Stream sequence of the job's last event it reflects: an older fold never replaces a newer one. */
  lastSeq: Schema.Number
})
export type JobUsage = typeof JobUsage.Type

/** The job's usage as its one state says (null before it was queued). */
export const jobUsageOf = (state: JobState, lastSeq: number): JobUsage | null => {
  const status = jobStatus(state)
  if (state === null || status === "none") return null
  return {
    projectId: state.projectId,
    jobId: state.id,
    day: utcDay(state.createdAt),
    // A scheduled job counts as queued: usage counts the downloads asked for, not how long they waited.
    status: status === "scheduled" ? "queued" : status,
    platform: state.platform,
    errorCode: status === "failed" ? (state.error?.code ?? null) : null,
    bytes: status === "completed" ? (state.artifact?.sizeBytes ?? 0) : 0,
    lastSeq
  }
}
