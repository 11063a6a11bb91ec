// Extension: how the batch feeder carries out one command of its reaction: start an entry (claim a slot, queue its
// job, hand it to a worker, record it), record an entry, cancel an entry's job, free a slot, expire the entries, cancel
// the batch of a removed subscription.
import { Effect } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { admitJob, asRecorded, confirmAdmission, releaseAdmittedSlot, releaseIfInVain } from "@mds/shared/application/admission/AdmitJob"
import { giveUpJob } from "@mds/shared/application/job/GiveUpJob"
import { batchCommands } from "@mds/shared/application/batch/BatchCommands"
import type { BatchRecipe, BatchState } from "@mds/shared/domain/batch/BatchState"
import type { FeedCommand } from "@mds/shared/domain/batch/BatchFeed"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/application/job/DownloadWork"
import { cancelJob } from "@mds/shared/application/job/CancelJob"

/** A batch of the feeder's: created (its ids and recipe known). */
type CreatedBatch = BatchState & { readonly batchId: string; readonly projectId: string; readonly recipe: BatchRecipe }

const jobOf = (batch: CreatedBatch, entryId: string, jobId: string, now: number, lifetimeMs: number): QueuedJob => {
  const entry = batch.entries.find((e) => e.entryId === entryId)
  const { recipe } = batch
  return {
    jobId,
    projectId: batch.projectId,
    platform: recipe.platform,
    format: recipe.format,
    source: { url: entry?.url ?? "", mediaId: null },
    now,
    lifetimeMs,
    ...(recipe.options === undefined ? {} : { options: recipe.options }),
    batch: { batchId: batch.batchId, entryId }
  }
}

const isCreated = (batch: BatchState): batch is CreatedBatch => batch.batchId !== null && batch.projectId !== null && batch.recipe !== null

/** Carries out one command; false when the project turned out full (the remaining starts wait for a freed slot). */
export const carryOutFeedCommand = Effect.fn("BatchFeeder.carryOut")(function* (state: BatchState, command: FeedCommand, now: number) {
  if (!isCreated(state)) return true
  const { projectId, batchId } = state
  const lifetimes = yield* Lifetimes
  const batch = batchCommands(projectId, batchId)
  switch (command._tag) {
    case "StartEntry": {
      const job = jobOf(state, command.entryId, command.jobId, now, lifetimes.jobMs)
      // Over a quota the entry waits like one for a slot: until the quota resets or the batch's end expires it.
      const admitted = yield* admitJob(projectId, job.jobId, 0, job.now + job.lifetimeMs).pipe(
        Effect.catchTags({ ConcurrencyLimitExceeded: () => Effect.succeed(null), QuotaExceeded: () => Effect.succeed(null) })
      )
      if (admitted === null) return false
      // Queued meanwhile by another round: the next round reads that job and records or finishes the entry; a claim
      // this round made for it in vain (the job admitted by another, or ended already) is given back.
      const queued = yield* queueJob({ ...job, claim: admitted.claim }).pipe(
        Effect.catchTag("JobAlreadyExists", () => releaseIfInVain(projectId, job.jobId, 0, admitted).pipe(Effect.as(null)))
      )
      if (queued === null) return true
      // Its slot was freed before the job was recorded (a round stalled past the orphan grace): the job fails
      // (retryably) and its entry follows it. Another round's record of it (stored first) is the one confirmed.
      const held = yield* confirmAdmission(projectId, job.jobId, 0, asRecorded(admitted, queued.state)).pipe(
        Effect.tapError(() => giveUpJob(projectId, job.jobId, true)),
        Effect.catchTag("SlotLost", () => Effect.succeed(null))
      )
      if (held === null) return false
      yield* sendDownloadWork(job, 0, held.quotaBytesLeft)
      yield* batch({ _tag: "RecordEntryQueued", batchId, entryId: command.entryId, jobId: job.jobId, now })
      return true
    }
    case "RecordEntryQueued":
      // Its work message was lost with the record: the same message id, so a worker that has it sees one.
      if (command.resendWork) yield* sendDownloadWork(jobOf(state, command.entryId, command.jobId, now, lifetimes.jobMs))
      yield* batch({ _tag: "RecordEntryQueued", batchId, entryId: command.entryId, jobId: command.jobId, now })
      return true
    case "RecordEntryFinished":
      yield* batch({
        _tag: "RecordEntryFinished",
        batchId,
        jobId: command.jobId,
        outcome: command.outcome,
        ...(command.retry === undefined ? {} : { retry: command.retry }),
        now
      })
      return true
    case "RecordEntryRetried":
      yield* batch({ _tag: "RecordEntryRetried", batchId, jobId: command.jobId, retry: command.retry, now })
      return true
    case "CancelEntryJob":
      // A job that ended meanwhile refuses the cancel: the next round finishes its entry.
      yield* cancelJob(projectId, command.jobId).pipe(
        Effect.catchTags({ JobAlreadyFinished: () => Effect.void, JobNotFound: () => Effect.void, InvalidJobTransition: () => Effect.void })
      )
      return true
    case "ReleaseSlot":
      yield* releaseAdmittedSlot(projectId, command.jobId, command.reason, command.bytes ?? 0, {
        retry: command.retry ?? 0,
        claim: command.claim
      })
      return true
    case "ExpireEntries":
      yield* batch({ _tag: "ExpireEntries", batchId, now })
      return true
    case "CancelBatch":
      // Canceled meanwhile, or every entry ended: nothing left to stop.
      yield* batch({ _tag: "CancelBatch", batchId, now }).pipe(Effect.catchTag("BatchAlreadyFinished", () => Effect.void))
      return true
  }
})
