// A client's cancel of a queued or processing job (DELETE /v1/jobs/{id}, or a canceled batch's entry): recorded, and
// the job's slot freed when nothing runs for it any more.
import { Clock, Effect } from "effect"
import { JobNotFound } from "../../domain/DomainErrors.ts"
import { slotReleaseOf } from "../../domain/job/JobSlot.ts"
import { retriesOf } from "../../domain/job/JobState.ts"
import { releaseAdmittedSlot } from "../admission/AdmitJob.ts"
import { jobCommands } from "./JobCommands.ts"

/**
 * The decider judges from the job's own events (another project's job is an empty subject, so not found): a queued
 * or processing job is canceled, a canceled one stays so (idempotent), a finished one is refused. A job canceled while
 * queued frees its slot here, so the project can queue at once; one a worker had started keeps it until that worker
 * has stopped the run (slotReleaseOf), so a third run never starts beside a canceled one. Returns the job's state and
 * the sequence of its last event (what a reader that serves it, such as the gateway's view cache, is seeded with).
 */
export const cancelJob = Effect.fn("cancelJob")(function* (projectId: string, jobId: string) {
  const now = yield* Clock.currentTimeMillis
  const { state, lastSeq } = yield* jobCommands(projectId, jobId)({ _tag: "CancelJob", jobId, now })
  if (state === null) return yield* new JobNotFound({ jobId })
  const reason = slotReleaseOf(state)
  // Idempotent: releasing a slot that is not held (already released, or a repeated cancel) changes nothing.
  if (reason !== null) yield* releaseAdmittedSlot(projectId, jobId, reason, 0, { retry: retriesOf(state) })
  return { state, lastSeq }
})
