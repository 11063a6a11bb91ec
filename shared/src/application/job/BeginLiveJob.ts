// Extension: a scheduled job whose stream began takes a slot as a new download does: judged by the job decider,
// admitted (a slot within the quotas, its first try's), recorded (JobLiveBegan) and handed to a worker.
import { Clock, Effect, Result } from "effect"
import { Lifetimes } from "../../config/Lifetimes.ts"
import { JobNotFound } from "../../domain/DomainErrors.ts"
import { decideJob } from "../../domain/job/JobDecider.ts"
import { retriesOf } from "../../domain/job/JobState.ts"
import { admitJob, asRecorded, confirmAdmission, releaseIfInVain } from "../admission/AdmitJob.ts"
import { queuedJobOf, sendDownloadWork } from "./DownloadWork.ts"
import { giveUpJob } from "./GiveUpJob.ts"
import { jobCommands } from "./JobCommands.ts"
import { JobStates } from "./JobStates.ts"

/**
 * Judged once before the slot is claimed, so a job no longer scheduled (canceled meanwhile) claims nothing; then the
 * slot (ConcurrencyLimitExceeded or QuotaExceeded otherwise: the job stays scheduled, holding nothing, and the
 * reactor tries again), JobLiveBegan with the claim and a lifetime from now, the confirmation and the work message
 * (of the job's current try: its first, or the one a queued download's wait started). A claim a repeat of this step
 * finds already held is the one it goes on with.
 */
export const beginLiveJob = Effect.fn("beginLiveJob")(function* (projectId: string, jobId: string) {
  const lifetimes = yield* Lifetimes
  const now = yield* Clock.currentTimeMillis
  const before = (yield* (yield* JobStates).current(projectId, jobId)).state
  const command = { _tag: "BeginLiveJob", jobId, now, lifetimeMs: lifetimes.jobMs } as const
  const judged = decideJob(command, before)
  if (Result.isFailure(judged)) return yield* judged.failure
  // The try the stream's start begins: the first, or (a queued download that waited) the one its wait started.
  const retry = retriesOf(before)
  const admitted = yield* admitJob(projectId, jobId, retry, now + lifetimes.jobMs)
  const began = yield* jobCommands(
    projectId,
    jobId
  )({ ...command, claim: admitted.claim }).pipe(
    Effect.tapError(() => releaseIfInVain(projectId, jobId, retry, admitted).pipe(Effect.ignore))
  )
  const view = began.state
  if (view === null) return yield* new JobNotFound({ jobId })
  const held = yield* confirmAdmission(projectId, jobId, retry, asRecorded(admitted, view)).pipe(
    Effect.tapError(() => giveUpJob(projectId, jobId, true, retry))
  )
  yield* sendDownloadWork(queuedJobOf(view), retry, held.quotaBytesLeft)
  return { state: view, lastSeq: began.lastSeq }
})
