// A new download's writes: admit it (a slot within the quotas), record JobQueued, confirm the slot, hand it to a
// worker; when a step fails after the claim, the job is given up (failed, its slot freed) in the background, since its
// client gets an error.
import { Effect } from "effect"
import { admitJob, asRecorded, confirmAdmission } from "../admission/AdmitJob.ts"
import { type QueuedJob, queueJob, sendDownloadWork } from "./DownloadWork.ts"
import { giveUpJob } from "./GiveUpJob.ts"

/** Returns the queued job's state and the sequence it was recorded at (what a reader may remember of it). */
export const queueNewJob = Effect.fn("queueNewJob")(function* (job: QueuedJob) {
  const { projectId, jobId } = job
  // A refused claim (the project is full) stored nothing; one that failed in NATS may have been stored.
  const admitted = yield* admitJob(projectId, jobId, 0, job.now + job.lifetimeMs).pipe(
    Effect.tapError((error) => (error._tag === "EventStoreError" ? giveUpJob(projectId, jobId, false) : Effect.void))
  )
  return yield* Effect.gen(function* () {
    // The job id was generated for this request: nothing to read.
    const queued = yield* queueJob({ ...job, claim: admitted.claim }, { isNew: true })
    const held = yield* confirmAdmission(projectId, jobId, 0, asRecorded(admitted, queued.state))
    yield* sendDownloadWork(job, 0, held.quotaBytesLeft)
    return queued
  }).pipe(Effect.tapError(() => giveUpJob(projectId, jobId, true)))
})
