// Builders for job events in tests: one place that spells out a JobQueued, JobStarted, ... with typical values.
import type {
  JobArtifact,
  JobCompleted,
  JobEvent,
  JobExpired,
  JobFailed,
  JobProgressed,
  JobQueued,
  JobRetried,
  JobStarted
} from "@mds/shared/domain/job/JobEvent"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

/** One hour, the default job lifetime. */
export const JOB_LIFETIME_MS = 3_600_000

export const jobQueued = (projectId: string, jobId: string, at: number, fields: Partial<JobQueued> = {}): JobQueued => ({
  _tag: "JobQueued",
  v: 1,
  jobId,
  projectId,
  platform: "generic",
  format: parseFormatId("video_best"),
  source: { url: "https://example.com/a.mp4", mediaId: null },
  createdAt: at,
  expiresAt: at + JOB_LIFETIME_MS,
  ...fields
})

export const jobStarted = (jobId: string, at: number, fields: Partial<JobStarted> = {}): JobStarted => ({
  _tag: "JobStarted",
  v: 1,
  jobId,
  attempt: 1,
  workerId: "w1",
  at,
  ...fields
})

export const jobProgressed = (jobId: string, percent: number, at: number): JobProgressed => ({
  _tag: "JobProgressed",
  v: 1,
  jobId,
  percent,
  at
})

/** The artifact a worker stores for the job: `clip.mp4` under the job's key prefix, kept two hours. */
export const jobArtifact = (projectId: string, jobId: string, at: number, fields: Partial<JobArtifact> = {}): JobArtifact => ({
  key: `jobs/${projectId}/${jobId}/clip.mp4`,
  filename: "clip.mp4",
  mimeType: "video/mp4",
  sizeBytes: 12,
  availableUntil: at + 2 * JOB_LIFETIME_MS,
  ...fields
})

export const jobCompleted = (projectId: string, jobId: string, at: number, artifact?: JobArtifact): JobCompleted => ({
  _tag: "JobCompleted",
  v: 1,
  jobId,
  artifact: artifact ?? jobArtifact(projectId, jobId, at),
  at
})

export const jobFailed = (
  jobId: string,
  at: number,
  error: JobFailed["error"] = { code: "media_unavailable", message: "gone", retryable: false }
): JobFailed => ({
  _tag: "JobFailed",
  v: 1,
  jobId,
  error,
  at
})

/** The job's `retry`th retry, after `attempt` runs (by default one run per earlier try). */
export const jobRetried = (jobId: string, retry: number, at: number, fields: Partial<JobRetried> = {}): JobRetried => ({
  _tag: "JobRetried",
  v: 1,
  jobId,
  retry,
  attempt: retry,
  by: "automatic",
  at,
  ...fields
})

export const jobExpired = (jobId: string, at: number): JobExpired => ({ _tag: "JobExpired", v: 1, jobId, at })

/** A job's whole history up to completion: queued, started, completed (1 ms apart). */
export const completedJob = (projectId: string, jobId: string, at: number): ReadonlyArray<JobEvent> => [
  jobQueued(projectId, jobId, at),
  jobStarted(jobId, at + 1),
  jobCompleted(projectId, jobId, at + 2)
]
