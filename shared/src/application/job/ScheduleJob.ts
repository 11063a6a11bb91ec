// Extension: a download of a stream or premiere that has not begun: recorded as a scheduled job (JobScheduled), with no
// slot claimed and no work message: the live-wait reactor takes it from there.
import { Effect } from "effect"
import { LiveWait } from "../../config/LiveWait.ts"
import type { QueuedJob } from "./DownloadWork.ts"
import { jobCommands } from "./JobCommands.ts"

/** `startsAt`: the announced start (release_at), null when the media did not say. Returns the job's state and sequence. */
export const scheduleJob = Effect.fn("scheduleJob")(function* (job: QueuedJob, startsAt: number | null) {
  const live = yield* LiveWait
  const { claim: _claim, ...fields } = job
  // The job id was generated for this request: nothing to read.
  return yield* jobCommands(job.projectId, job.jobId)({ _tag: "ScheduleJob", ...fields, startsAt, live }, { isNew: true })
})
