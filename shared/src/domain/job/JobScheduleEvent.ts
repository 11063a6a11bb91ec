// Extension: the events of a scheduled job: a download of a stream or premiere that has not begun waits, holding no
// slot, with its next probe's due time recorded (the durable wake-up), until a probe finds it live.
import { Schema } from "effect"
import { FormatId } from "../media/FormatId.ts"
import { DownloadOptions } from "./DownloadOptions.ts"
import { JobBatchEntry, JobSource } from "./JobSource.ts"

const V1 = Schema.Literal(1)
const EpochMillis = Schema.Number

/**
 * A download of an upcoming stream (`live_status: is_upcoming`): the job exists, in status `scheduled`, but holds no
 * slot and no work message. `nextProbeAt` is when the live-wait reactor resolves the media again; past `waitUntil`
 * (LIVE_WAIT_MAX_SECONDS after the schedule) it gives up. The lifetime (`expiresAt`) runs from `waitUntil`, so the job
 * stays readable until it gave up and a job's lifetime after.
 */
export const JobScheduled = Schema.TaggedStruct("JobScheduled", {
  v: V1,
  jobId: Schema.String,
  projectId: Schema.String,
  platform: Schema.String,
  format: FormatId,
  source: JobSource,
  createdAt: EpochMillis,
  expiresAt: EpochMillis,
  /** When the stream is announced to begin (yt-dlp's release_timestamp); the schedule's time when it did not say. */
  startsAt: EpochMillis,
  waitUntil: EpochMillis,
  nextProbeAt: EpochMillis,
  options: Schema.optionalKey(DownloadOptions),
  batch: Schema.optionalKey(JobBatchEntry)
})
export type JobScheduled = typeof JobScheduled.Type

/** What a probe found: the stream is live, not yet, or the resolve failed (counted: five in a row give up). */
export const LiveProbeOutcome = Schema.Literals(["live", "not_live", "failed"])
export type LiveProbeOutcome = typeof LiveProbeOutcome.Type

/** A probe of a scheduled job's media, and when the next one is due (for `live`: now; the job takes a slot next). */
export const JobLiveProbed = Schema.TaggedStruct("JobLiveProbed", {
  v: V1,
  jobId: Schema.String,
  outcome: LiveProbeOutcome,
  /** Failed probes in a row, this one included (0 after one that answered). */
  failedProbes: Schema.Int,
  /** The start the media announces now, when the probe read one (a premiere moved). */
  startsAt: Schema.optionalKey(EpochMillis),
  nextProbeAt: EpochMillis,
  at: EpochMillis
})
export type JobLiveProbed = typeof JobLiveProbed.Type

/**
 * The stream began and the job took a slot like a new download: it is queued from here (a new lifetime from now,
 * `expiresAt`), and its work message follows.
 */
export const JobLiveBegan = Schema.TaggedStruct("JobLiveBegan", {
  v: V1,
  jobId: Schema.String,
  /** The admission claim the job was admitted with. */
  claim: Schema.optionalKey(Schema.String),
  expiresAt: EpochMillis,
  at: EpochMillis
})
export type JobLiveBegan = typeof JobLiveBegan.Type

/**
 * A download that was queued, and whose run found its stream or premiere not begun (yt-dlp said it is upcoming): the
 * try that ran ends (its worker frees its slot, counting nothing toward the day's jobs), and the job waits as a
 * scheduled one does, holding no slot. Once a probe finds the stream live its next try (`retry`) takes a slot like a new
 * download. Only a job that never waited does so: one that waited already and still finds its stream not begun fails
 * live_not_started.
 */
export const JobAwaitingStart = Schema.TaggedStruct("JobAwaitingStart", {
  v: V1,
  jobId: Schema.String,
  /** The run that found the stream not begun. */
  attempt: Schema.Int,
  /** The try the stream's start begins (the job's tries so far + 1). */
  retry: Schema.Int,
  /** When the stream is announced to begin (release_timestamp); the time of this event when it did not say. */
  startsAt: EpochMillis,
  waitUntil: EpochMillis,
  nextProbeAt: EpochMillis,
  /** The job's lifetime now runs from the end of the wait, as a scheduled job's does. */
  expiresAt: EpochMillis,
  at: EpochMillis
})
export type JobAwaitingStart = typeof JobAwaitingStart.Type
