// Queues a job and hands it to the extractor fleet: JobQueued on the job's subject, then one DownloadMedia on the
// work subject, deduplicated by the job id. Callers run the two in that order (a worker must find its job) and decide
// what comes between (a claimed slot, a cached view) and whether an already queued job is handed off again.
import { Effect } from "effect"
import type { CommandCallOptions } from "../../eventstore/CommandHandler.ts"
import { factRecorder } from "../../eventstore/FactRecorder.ts"
import { DOWNLOAD_WORK_SUBJECT } from "../../eventstore/Subjects.ts"
import { DownloadMedia } from "./DownloadMedia.ts"
import { hasOptions } from "./DownloadOptions.ts"
import { jobCommands } from "./JobCommands.ts"
import type { JobCommand } from "./JobDecider.ts"
import type { JobState } from "./JobState.ts"

/** A job as its QueueJob command describes it; the work message is drawn from the same fields. */
export type QueuedJob = Omit<Extract<JobCommand, { readonly _tag: "QueueJob" }>, "_tag">

/** Records the job's JobQueued (JobAlreadyExists when it was queued before). */
export const queueJob = (job: QueuedJob, call?: CommandCallOptions<JobState>) =>
  jobCommands(job.projectId, job.jobId)({ _tag: "QueueJob", ...job }, call)

/** A work message is a fact of the work queue: one per job, named by the job id. */
const recordWork = factRecorder({ codec: DownloadMedia, msgId: (work) => work.jobId })

/** The same job handed off twice (a retried request, a redelivered batch step) is one work message. */
export const sendDownloadWork = Effect.fnUntraced(function* (job: QueuedJob) {
  const work: DownloadMedia = {
    _tag: "DownloadMedia",
    v: 1,
    jobId: job.jobId,
    projectId: job.projectId,
    url: job.source.url,
    mediaId: job.source.mediaId,
    format: job.format,
    platform: job.platform,
    ...(hasOptions(job.options) ? { options: job.options } : {})
  }
  return yield* recordWork(DOWNLOAD_WORK_SUBJECT, work)
})
