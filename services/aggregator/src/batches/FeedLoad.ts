// Extension: what a round of the batch feeder reads: the reaction's state (the batch, the project's held slots, the
// states of the entries' jobs that matter now, and for a subscription's batch, what its subscription lets), each from
// its aggregate's read door.
import { Effect } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { currentAdmission } from "@mds/shared/application/admission/AdmissionCommands"
import { currentBatch } from "@mds/shared/application/batch/BatchCommands"
import { liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { entriesToLookUp, type EntryJob, type FeedState } from "@mds/shared/domain/batch/BatchFeed"
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { progressOf } from "@mds/shared/domain/batch/BatchState"
import { slotReleaseBytes, slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { retryReaction } from "@mds/shared/domain/job/JobRetries"
import { jobStatus, retriesOf } from "@mds/shared/domain/job/JobState"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { currentSubscription } from "@mds/shared/application/subscription/SubscriptionCommands"
import { subscriptionBatchGate } from "@mds/shared/domain/subscription/SubscriptionBatches"
import { AutoRetryConfig } from "../jobs/AutoRetryConfig.ts"

export const loadFeed = Effect.fn("BatchFeeder.load")(function* (projectId: string, batchId: string, now: number, entryId: string | null) {
  const jobStates = yield* JobStates
  const { maxConcurrentJobs } = yield* Lifetimes
  const retries = retryReaction(yield* AutoRetryConfig)
  const batch = (yield* currentBatch(projectId, batchId)).state
  const held = liveSlots((yield* currentAdmission(projectId)).state, now).map((slot) => slot.jobId)
  const lookUp = new Set(entriesToLookUp(batch, held, maxConcurrentJobs))
  if (entryId !== null && batch.entries.some((entry) => entry.entryId === entryId)) lookUp.add(entryId)
  const jobs = yield* Effect.forEach(
    [...lookUp],
    (id) => {
      const progress = progressOf(batch, id)
      const jobId = progress._tag === "Queued" || progress._tag === "Finished" ? progress.jobId : entryJobId(batchId, id)
      return Effect.map(jobStates.current(projectId, jobId), ({ state }): [string, EntryJob] => [
        id,
        {
          jobId,
          status: jobStatus(state),
          slotRelease: slotReleaseOf(state),
          slotBytes: slotReleaseBytes(state),
          retry: retriesOf(state),
          ...(state?.claim === undefined ? {} : { claim: state.claim }),
          willRetry: retries(state, { _tag: "Reconcile", now }).some((reaction) => reaction._tag !== "HandOff")
        }
      ])
    },
    { concurrency: 4 }
  )
  // A subscription's batch starts entries only as its subscription lets (SubscriptionBatches.ts).
  const subscriptionId = batch.recipe?.subscriptionId
  const gate =
    subscriptionId === undefined ? "open" : subscriptionBatchGate((yield* currentSubscription(projectId, subscriptionId)).state, batchId)
  return { batch, jobs: Object.fromEntries(jobs), held, limit: maxConcurrentJobs, gate } satisfies FeedState
})
