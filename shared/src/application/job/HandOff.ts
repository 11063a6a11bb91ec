// A queued job handed to the workers again, when its work message is gone: a process that recorded JobQueued or
// JobRetried and died (or lost NATS) before sending it. The work stream keeps a job's message until a worker
// acknowledges it, so a message still there for the job's current try means there is nothing to send.
import { randomUUID } from "node:crypto"
import { Effect, Option } from "effect"
import { DownloadMedia } from "../../domain/job/DownloadMedia.ts"
import { retriesOf } from "../../domain/job/JobState.ts"
import type { JobView } from "../../domain/job/JobView.ts"
import { EventStore } from "../../eventstore/EventStore.ts"
import { downloadWorkSubject } from "../../nats/Subjects.ts"
import { confirmAdmission } from "../admission/AdmitJob.ts"
import { queuedJobOf, sendDownloadWork } from "./DownloadWork.ts"

/**
 * Sends the work message of the job's current try unless the stream still holds one: the same message id as the
 * first (within the stream's duplicate window it is that one). Its slot is confirmed first, and claimed again if an
 * orphan release freed it (the process that recorded the try died before confirming it): a work message always has a
 * slot behind it. A second message of a try whose first is still running starts nothing (StartJob's fence), so a race
 * costs nothing. "waiting" when the slot cannot be had now (the project's slots held, a quota used up).
 */
export const handOffAgain = Effect.fn("handOffAgain")(function* (job: JobView) {
  const retry = retriesOf(job)
  const pending = yield* (yield* EventStore).readLast(DownloadMedia, downloadWorkSubject(job.projectId, job.id))
  if (Option.isSome(pending) && (pending.value.event.retry ?? 0) === retry) return "pending" as const
  const held = yield* confirmAdmission(
    job.projectId,
    job.id,
    retry,
    { claim: job.claim ?? randomUUID(), expiresAt: job.expiresAt },
    true
  ).pipe(
    Effect.catchTags({
      ConcurrencyLimitExceeded: () => Effect.succeed(null),
      QuotaExceeded: () => Effect.succeed(null),
      SlotLost: () => Effect.succeed(null)
    })
  )
  if (held === null) return "waiting" as const
  yield* sendDownloadWork(queuedJobOf(job), retry, held.quotaBytesLeft)
  return "sent" as const
})
