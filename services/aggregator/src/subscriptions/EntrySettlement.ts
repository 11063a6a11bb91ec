// Extension: records what became of a subscription's entries in flight: each entry's batch and job read, judged
// (EntryOutcomes.ts) and the outcomes of those that ended appended in one SubscriptionEntriesSettled.
import { Clock, Effect } from "effect"
import { currentBatch } from "@mds/shared/application/batch/BatchCommands"
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { progressOf } from "@mds/shared/domain/batch/BatchState"
import { type EntrySighting, settle, sightingOf } from "@mds/shared/domain/subscription/EntryOutcomes"
import { inFlightEntries } from "@mds/shared/domain/subscription/SubscriptionState"

/** How many outcomes it recorded (0: every entry in flight is still on its way). */
export const settleEntries = Effect.fn("SubscriptionCheck.settle")(function* (projectId: string, subscriptionId: string) {
  const jobStates = yield* JobStates
  const { state } = yield* currentSubscription(projectId, subscriptionId)
  if (state === null || state.removed) return 0
  const entries = inFlightEntries(state)
  if (entries.length === 0) return 0
  const now = yield* Clock.currentTimeMillis
  const batchIds = [...new Set(entries.flatMap((entry) => (entry.batchId === null ? [] : [entry.batchId])))]
  const batches = new Map(
    yield* Effect.forEach(
      batchIds,
      (batchId) => Effect.map(currentBatch(projectId, batchId), ({ state: batch }) => [batchId, batch] as const),
      {
        concurrency: 4
      }
    )
  )
  const sightings = yield* Effect.forEach(
    entries,
    (entry) =>
      Effect.gen(function* () {
        const batchId = entry.batchId ?? ""
        const batch = batches.get(batchId)
        if (batch === undefined) return [entry.archiveKey, { _tag: "InFlight" }] as const
        const progress = progressOf(batch, entry.entryId)
        const jobId = progress._tag === "Queued" || progress._tag === "Finished" ? progress.jobId : entryJobId(batchId, entry.entryId)
        const { state: job } = yield* jobStates.current(projectId, jobId)
        return [entry.archiveKey, sightingOf(batch, entry.entryId, job, now)] as const
      }),
    { concurrency: 4 }
  )
  const outcomes = settle(entries, new Map<string, EntrySighting>(sightings))
  if (outcomes.length === 0) return 0
  yield* subscriptionCommands(projectId, subscriptionId)({ _tag: "SettleEntries", subscriptionId, now, outcomes })
  yield* Effect.logInfo("subscription entries settled", {
    subscriptionId,
    downloaded: outcomes.filter((o) => o.result === "downloaded").length,
    givenUp: outcomes.filter((o) => o.result === "given_up").length,
    waiting: outcomes.filter((o) => o.result === "waiting").length
  })
  return outcomes.length
})
