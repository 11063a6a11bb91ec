// Extension: one round of the batch feeder: read what the reaction needs, react, and carry out its commands.
import { Clock, Effect, Option } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { claimSlot, releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { AdmissionDecider, liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { batchCommands } from "@mds/shared/domain/batch/BatchCommands"
import { BatchDecider } from "@mds/shared/domain/batch/BatchDecider"
import { type BatchCreated, BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import {
  entriesToLookUp,
  type EntryJob,
  type FeedCommand,
  type FeedState,
  type FeedTrigger,
  react
} from "@mds/shared/domain/batch/BatchFeed"
import { entryJobId } from "@mds/shared/domain/batch/EntryJobId"
import { isBatchDone, progressOf } from "@mds/shared/domain/batch/BatchState"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { slotReleaseBytes, slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { jobStatus } from "@mds/shared/domain/job/JobState"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { admissionSubject, batchSubject } from "@mds/shared/eventstore/Subjects"
import { JobStates } from "@mds/shared/jobs/JobStates"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"
import { bytesLeft } from "@mds/shared/domain/admission/Quota"

/** A round's reads: the batch as created (what its jobs are made of) and the reaction's state. */
interface Loaded {
  readonly created: BatchCreated | undefined
  readonly state: FeedState
}

/** Rounds per wake-up: each acts on what the previous one changed (a canceled job ends, a freed slot is taken). */
const MAX_ROUNDS = 4

const load = Effect.fn("BatchFeeder.load")(function* (projectId: string, batchId: string, now: number, entryId: string | null) {
  const store = yield* EventStore
  const jobStates = yield* JobStates
  const { maxConcurrentJobs } = yield* Lifetimes
  const stored = yield* store.readSubject(BatchEvent, batchSubject(projectId, batchId))
  const batch = stored.reduce((state, item) => BatchDecider.evolve(state, item.event), BatchDecider.initialState())
  const first = stored[0]?.event
  const created = first?._tag === "BatchCreated" ? first : undefined
  const admission = yield* store.readLast(AdmissionEvent, admissionSubject(projectId))
  const held = liveSlots(
    Option.match(admission, {
      onNone: AdmissionDecider.initialState,
      onSome: ({ event }) => AdmissionDecider.evolve(AdmissionDecider.initialState(), event)
    }),
    now
  ).map((slot) => slot.jobId)
  const lookUp = new Set(entriesToLookUp(batch, held, maxConcurrentJobs))
  if (entryId !== null && batch.entries.some((entry) => entry.entryId === entryId)) lookUp.add(entryId)
  const jobs = yield* Effect.forEach(
    [...lookUp],
    (id) => {
      const progress = progressOf(batch, id)
      const jobId = progress._tag === "Queued" || progress._tag === "Finished" ? progress.jobId : entryJobId(batchId, id)
      return Effect.map(jobStates.current(projectId, jobId), ({ state }): [string, EntryJob] => [
        id,
        { jobId, status: jobStatus(state), slotRelease: slotReleaseOf(state), slotBytes: slotReleaseBytes(state) }
      ])
    },
    { concurrency: 4 }
  )
  const state: FeedState = { batch, jobs: Object.fromEntries(jobs), held, limit: maxConcurrentJobs }
  return { created, state } satisfies Loaded
})

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
const carryOut = Effect.fn("BatchFeeder.carryOut")(function* (created: BatchCreated, command: FeedCommand, now: number) {
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

/**
 * Reacts to one wake-up of a batch until nothing is left to do (at most MAX_ROUNDS rounds). Returns whether the
 * batch is over for good: done, with nothing left to do, so that slot releases and reconciles can pass it by.
 */
export const feedBatch = Effect.fn("BatchFeeder.feed")(function* (
  projectId: string,
  batchId: string,
  trigger: FeedTrigger["_tag"],
  entryId: string | null = null
) {
  for (let round = 0; round < MAX_ROUNDS; round++) {
    const now = yield* Clock.currentTimeMillis
    const { created, state } = yield* load(projectId, batchId, now, entryId)
    if (created === undefined) return false
    const commands = react(state, { _tag: trigger, now })
    if (commands.length === 0) return isBatchDone(state.batch)
    let full = false
    for (const command of commands) {
      if (full && command._tag === "StartEntry") continue
      if (!(yield* carryOut(created, command, now))) full = true
    }
  }
  return false
})
