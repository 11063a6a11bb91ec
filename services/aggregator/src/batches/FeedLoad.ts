// Extension: what a round of the batch feeder reads: the batch as created, and the reaction's state (the batch, the
// project's held slots, the states of the entries' jobs that matter now).
import { Effect, Option } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { AdmissionDecider, liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { BatchDecider } from "@mds/shared/domain/batch/BatchDecider"
import { type BatchCreated, BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { entriesToLookUp, type EntryJob, type FeedState } from "@mds/shared/domain/batch/BatchFeed"
import { entryJobId } from "@mds/shared/domain/batch/EntryJobId"
import { progressOf } from "@mds/shared/domain/batch/BatchState"
import { slotReleaseBytes, slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { jobStatus } from "@mds/shared/domain/job/JobState"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { admissionSubject, batchSubject } from "@mds/shared/eventstore/Subjects"
import { JobStates } from "@mds/shared/jobs/JobStates"

/** A round's reads: the batch as created (what its jobs are made of) and the reaction's state. */
interface Loaded {
  readonly created: BatchCreated | undefined
  readonly state: FeedState
}

export const loadFeed = Effect.fn("BatchFeeder.load")(function* (projectId: string, batchId: string, now: number, entryId: string | null) {
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
