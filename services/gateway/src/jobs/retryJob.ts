// Extension, POST /v1/jobs/:jobId/retry: queue a failed job of the key's project again, when its failure was retryable.
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { queuedJobOf, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { decideJob, type JobCommand } from "@mds/shared/domain/job/JobDecider"
import { slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { retriesOf } from "@mds/shared/domain/job/JobState"
import { JobId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Result, Schema } from "effect"
import { toJobResponse } from "@mds/shared/api/JobResponse"
import { JobStates } from "@mds/shared/jobs/JobStates"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { admitRetriedJob, releaseAdmittedSlot } from "./admitJob.ts"
import { JobViewCache } from "./JobViewCache.ts"

const isJobId = Schema.is(JobId)

/**
 * The job decider judges (another project's job is an empty subject here, so not found): only a failed job whose
 * failure is retryable, within its lifetime, is queued again. It judges once before the slot is claimed, so a job that
 * cannot be retried answers 409 whatever the project's slots; then the job takes a slot as a new download does (429
 * when the project's slots are all held or a quota is used up), is recorded retried and is handed to a worker as a new work message.
 */
export const retryJob = Effect.fn("retryJob")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  const { projectId } = principal
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const cache = yield* JobViewCache
  const jobs = yield* JobStates
  const now = yield* Clock.currentTimeMillis
  const command: JobCommand = { _tag: "RetryJob", jobId, by: "client", now }
  const judged = decideJob(command, (yield* jobs.current(projectId, jobId)).state)
  if (Result.isFailure(judged)) return yield* judged.failure
  const { quotaBytesLeft } = yield* admitRetriedJob(projectId, jobId)
  const retried = yield* jobCommands(
    projectId,
    jobId
  )(command).pipe(
    // Refused after all (another request retried it first, or it expired): the slot stays only if the job needs it.
    Effect.tapError(() =>
      Effect.flatMap(jobs.current(projectId, jobId), ({ state }) => {
        const reason = slotReleaseOf(state)
        return reason === null ? Effect.void : releaseAdmittedSlot(projectId, jobId, reason)
      }).pipe(Effect.ignore)
    )
  )
  const view = retried.state
  if (view === null) return yield* new JobNotFound({ jobId })
  cache.seed({ ...view, lastSeq: retried.lastSeq })
  yield* sendDownloadWork(queuedJobOf(view), retriesOf(view), quotaBytesLeft)
  return json(202, toJobResponse(view, null))
})
