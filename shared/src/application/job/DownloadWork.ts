// Queues a job and hands it to the extractor fleet: JobQueued on the job's subject, then one DownloadMedia on the
// work subject, deduplicated by the job id. Callers run the two in that order (a worker must find its job) and decide
// what comes between (a claimed slot, a cached view) and whether an already queued job is handed off again. A retried
// job (JobRetried) is handed off the same way, as a new message of its own.
import { Effect } from "effect"
import type { CommandCallOptions } from "../../eventstore/CommandHandler.ts"
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { downloadWorkSubject } from "../../nats/Subjects.ts"
import { DownloadMedia } from "../../domain/job/DownloadMedia.ts"
import { hasOptions } from "../../domain/job/DownloadOptions.ts"
import { jobCommands } from "./JobCommands.ts"
import type { JobCommand } from "../../domain/job/JobDecider.ts"
import type { JobState } from "../../domain/job/JobState.ts"
import type { JobView } from "../../domain/job/JobView.ts"

/** A job as its QueueJob command describes it; the work message is drawn from the same fields. */
export type QueuedJob = Omit<Extract<JobCommand, { readonly _tag: "QueueJob" }>, "_tag">

/** Records the job's JobQueued (JobAlreadyExists when it was queued before). */
export const queueJob = (job: QueuedJob, call?: CommandCallOptions<JobState>) =>
  jobCommands(job.projectId, job.jobId)({ _tag: "QueueJob", ...job }, call)

/**
 * The work message's id: the job's, and for a retry `<jobId>:retry:<n>`. The stream drops a message whose id it saw
 * within its duplicate window, so a retry (often within the window of the job's first message) needs its own.
 */
export const workMessageId = (jobId: string, retry: number) => (retry === 0 ? jobId : `${jobId}:retry:${retry}`)

/** A work message is a fact of the work queue: one per try of a job, named by the job id and the try. */
const recordWork = factRecorder({ codec: DownloadMedia, msgId: (work) => workMessageId(work.jobId, work.retry ?? 0) })

/** The job as its document describes it: what a retry hands off again (a retry's lifetime is the job's). */
export const queuedJobOf = (view: JobView): QueuedJob => ({
  jobId: view.id,
  projectId: view.projectId,
  platform: view.platform,
  format: view.format,
  source: view.source,
  now: view.createdAt,
  lifetimeMs: view.expiresAt - view.createdAt,
  ...(view.options === undefined ? {} : { options: view.options }),
  ...(view.batch === undefined ? {} : { batch: view.batch })
})

/**
 * The same job handed off twice (a retried request, a redelivered batch step) is one work message; `retry` (0: the
 * job's first try) names the try the message is for. `quotaBytesLeft`: what the project's byte quota left when the
 * try was admitted (null: no byte quota).
 */
export const sendDownloadWork = Effect.fnUntraced(function* (job: QueuedJob, retry = 0, quotaBytesLeft: number | null = null) {
  const work: DownloadMedia = {
    _tag: "DownloadMedia",
    v: 1,
    jobId: job.jobId,
    projectId: job.projectId,
    url: job.source.url,
    mediaId: job.source.mediaId,
    format: job.format,
    platform: job.platform,
    ...(hasOptions(job.options) ? { options: job.options } : {}),
    ...(retry === 0 ? {} : { retry }),
    ...(quotaBytesLeft === null ? {} : { quotaBytesLeft })
  }
  return yield* recordWork(downloadWorkSubject(job.projectId, job.jobId), work)
})
