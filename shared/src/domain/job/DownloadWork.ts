// Queues a job and hands it to the extractor fleet: JobQueued on the job's subject, then one DownloadMedia on the
// work subject, deduplicated by the job id. Callers run the two in that order (a worker must find its job) and decide
// what comes between (a claimed slot, a cached view) and whether an already queued job is handed off again.
import { Effect } from "effect"
import type { CommandCallOptions } from "../../eventstore/CommandHandler.ts"
import { EventStore } from "../../eventstore/EventStore.ts"
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

/**
 * The same job handed off twice (a retried request, a redelivered batch step) is one work message. `quotaBytesLeft`:
 * what the project's byte quota left when the job was admitted (null: no byte quota).
 */
export const sendDownloadWork = Effect.fnUntraced(function* (job: QueuedJob, quotaBytesLeft: number | null = null) {
  const store = yield* EventStore
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
    ...(quotaBytesLeft === null ? {} : { quotaBytesLeft })
  }
  return yield* store.append(DownloadMedia, DOWNLOAD_WORK_SUBJECT, work, { msgId: job.jobId })
})
