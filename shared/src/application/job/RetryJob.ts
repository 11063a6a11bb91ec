// A failed job queued again, as a client (POST /v1/jobs/{id}/retry) or the automatic retries ask: judged by the job
// decider, admitted like a new download (a slot of the new try's own, within the quotas), recorded (JobRetried) and
// handed to a worker.
import { Clock, Effect, Result } from "effect"
import { JobNotFound } from "../../domain/DomainErrors.ts"
import type { JobRetriedBy } from "../../domain/job/JobEvent.ts"
import { decideJob, type JobCommand } from "../../domain/job/JobDecider.ts"
import { retriesOf } from "../../domain/job/JobState.ts"
import { admitJob, asRecorded, confirmAdmission, releaseIfInVain } from "../admission/AdmitJob.ts"
import { queuedJobOf, sendDownloadWork } from "./DownloadWork.ts"
import { giveUpJob } from "./GiveUpJob.ts"
import { jobCommands } from "./JobCommands.ts"
import { JobStates } from "./JobStates.ts"

/**
 * Judged once before the slot is claimed, so a job that cannot be retried is refused whatever the project's slots;
 * then the new try takes a slot as a new download does (ConcurrencyLimitExceeded or QuotaExceeded otherwise), is
 * recorded retried with the claim it was admitted with, and is handed to a worker as a new work message. A retry
 * refused after its claim (another request retried the job first, or it expired) gives the claim back. `retry` names
 * the retry the automatic retries make (a repeat then appends nothing); a client's is the job's next. Returns the
 * job's state and its sequence.
 */
export const retryJob = Effect.fn("retryJob")(function* (projectId: string, jobId: string, by: JobRetriedBy, retry?: number) {
  const jobs = yield* JobStates
  const now = yield* Clock.currentTimeMillis
  const before = (yield* jobs.current(projectId, jobId)).state
  const nextTry = retry ?? retriesOf(before) + 1
  const judged = decideJob({ _tag: "RetryJob", jobId, by, now, retry: nextTry }, before)
  if (Result.isFailure(judged)) return yield* judged.failure
  // A retry lives the job's lifetime: its slot frees itself when the job's does.
  const admitted = yield* admitJob(projectId, jobId, nextTry, before?.expiresAt)
  const command: JobCommand = { _tag: "RetryJob", jobId, by, now, retry: nextTry, claim: admitted.claim }
  const retried = yield* jobCommands(
    projectId,
    jobId
  )(command).pipe(Effect.tapError(() => releaseIfInVain(projectId, jobId, nextTry, admitted).pipe(Effect.ignore)))
  const view = retried.state
  if (view === null) return yield* new JobNotFound({ jobId })
  const held = yield* confirmAdmission(projectId, jobId, nextTry, asRecorded(admitted, view)).pipe(
    Effect.tapError(() => giveUpJob(projectId, jobId, true, nextTry))
  )
  yield* sendDownloadWork(queuedJobOf(view), retriesOf(view), held.quotaBytesLeft)
  return { state: view, lastSeq: retried.lastSeq }
})
