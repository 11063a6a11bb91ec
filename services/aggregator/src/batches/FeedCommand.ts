// Extension: how the batch feeder carries out one command of its reaction: start an entry (claim a slot, queue its
// job, hand it to a worker, record it), record an entry, cancel an entry's job, free a slot, expire the entries.
import { Effect } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { claimSlot, releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { bytesLeft } from "@mds/shared/domain/admission/Quota"
import { batchCommands } from "@mds/shared/domain/batch/BatchCommands"
import type { BatchCreated } from "@mds/shared/domain/batch/BatchEvent"
import type { FeedCommand } from "@mds/shared/domain/batch/BatchFeed"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"

const jobOf = (created: BatchCreated, entryId: string, jobId: string, now: number, lifetimeMs: number): QueuedJob => {
  const entry = created.entries.find((e) => e.entryId === entryId)
  return {
    jobId,
    projectId: created.projectId,
    platform: created.platform,
    format: created.format,
    source: { url: entry?.url ?? "", mediaId: null },
    now,
    lifetimeMs,
    ...(created.options === undefined ? {} : { options: created.options }),
    batch: { batchId: created.batchId, entryId }
  }
}

/** Carries out one command; false when the project turned out full (the remaining starts wait for a freed slot). */
export const carryOutFeedCommand = Effect.fn("BatchFeeder.carryOut")(function* (created: BatchCreated, command: FeedCommand, now: number) {
  const { projectId, batchId } = created
  const lifetimes = yield* Lifetimes
  const batch = batchCommands(projectId, batchId)
  switch (command._tag) {
    case "StartEntry": {
      const job = jobOf(created, command.entryId, command.jobId, now, lifetimes.jobMs)
      const limit = lifetimes.maxConcurrentJobs
      const quota = yield* (yield* ProjectQuotaReader).limitsOf(projectId)
      // Over a quota the entry waits like one for a slot: until the quota resets or the batch's end expires it.
      const claimed = yield* claimSlot({ projectId, jobId: job.jobId, limit, quota, now, expiresAt: now + lifetimes.jobMs }).pipe(
        Effect.map((done) => ({ quotaBytesLeft: bytesLeft(quota, done.state.usage, now) })),
        Effect.catchTags({ ConcurrencyLimitExceeded: () => Effect.succeed(null), QuotaExceeded: () => Effect.succeed(null) })
      )
      if (claimed === null) return false
      // Queued meanwhile by another round: the next round reads that job and records or finishes the entry.
      const queued = yield* queueJob(job).pipe(
        Effect.as(true),
        Effect.catchTag("JobAlreadyExists", () => Effect.succeed(false))
      )
      if (!queued) return true
      yield* sendDownloadWork(job, 0, claimed.quotaBytesLeft)
      yield* batch({ _tag: "RecordEntryQueued", batchId, entryId: command.entryId, jobId: job.jobId, now })
      return true
    }
    case "RecordEntryQueued":
      // Its work message was lost with the record: the same message id, so a worker that has it sees one.
      if (command.resendWork) yield* sendDownloadWork(jobOf(created, command.entryId, command.jobId, now, lifetimes.jobMs))
      yield* batch({ _tag: "RecordEntryQueued", batchId, entryId: command.entryId, jobId: command.jobId, now })
      return true
    case "RecordEntryFinished":
      yield* batch({ _tag: "RecordEntryFinished", batchId, jobId: command.jobId, outcome: command.outcome, now })
      return true
    case "CancelEntryJob":
      // A job that ended meanwhile refuses the cancel: the next round finishes its entry.
      yield* jobCommands(
        projectId,
        command.jobId
      )({ _tag: "CancelJob", jobId: command.jobId, now }).pipe(
        Effect.catchTags({ JobAlreadyFinished: () => Effect.void, JobNotFound: () => Effect.void, InvalidJobTransition: () => Effect.void })
      )
      return true
    case "ReleaseSlot":
      yield* releaseSlot(projectId, command.jobId, command.reason, command.bytes ?? 0)
      return true
    case "ExpireEntries":
      yield* batch({ _tag: "ExpireEntries", batchId, now })
      return true
  }
})
