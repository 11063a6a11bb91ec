// Extension: one retention round of a subscription. Its library (the delivered entries its own records hold: the
// subscription's events, kept as long as it is, never a listing of the destination) first takes in the entries its
// jobs read delivered while those jobs live (hours; a library lasts months); then the entries its rule lets go have
// their media and own sidecars removed from the destination through the writer, JobDeliveryRemoved recorded on the
// job while it lives, and SubscriptionEntriesRemoved on the subscription. Idempotent: a round taken up again after a
// crash removes what is already gone without failing and records each removal once (the deciders).
import { Clock, Effect } from "effect"
import { currentSubscription, subscriptionCommands } from "../subscription/SubscriptionCommands.ts"
import { removablePaths } from "../../domain/job/JobDelivery.ts"
import type { LibraryEntry } from "../../domain/subscription/SubscriptionEvent.ts"
import { entriesPastRetention } from "../../domain/subscription/SubscriptionRetention.ts"
import { DeliveryDestinations } from "./DeliveryDestinations.ts"
import { jobCommands } from "./JobCommands.ts"
import { JobStates } from "./JobStates.ts"

export interface RetentionRound {
  /** The jobs whose files this round removed and recorded. */
  readonly removed: ReadonlyArray<string>
  /** The jobs whose removal failed (the destination unreachable, …): the next round tries them again. */
  readonly failed: ReadonlyArray<string>
}

/**
 * `jobIds`: the project's jobs whose records are kept (the caller lists them); those of this subscription's show that
 * read delivered join its library.
 */
export const retainSubscription = Effect.fn("retainSubscription")(function* (
  projectId: string,
  subscriptionId: string,
  jobIds: ReadonlyArray<string>
) {
  const { state: subscription } = yield* currentSubscription(projectId, subscriptionId)
  const rule = subscription?.retention
  if (subscription === null || subscription.removed || rule === undefined) return { removed: [], failed: [] } satisfies RetentionRound
  const jobStates = yield* JobStates
  const states = yield* Effect.forEach(jobIds, (jobId) => Effect.map(jobStates.current(projectId, jobId), ({ state }) => state), {
    concurrency: 8
  })
  const inLibrary = new Set(subscription.library.map((entry) => entry.jobId))
  const fresh: ReadonlyArray<LibraryEntry> = states.flatMap((state) =>
    state !== null &&
    !inLibrary.has(state.id) &&
    state.options?.delivery?.library?.subscriptionId === subscriptionId &&
    state.delivery?.status === "delivered" &&
    state.delivery.deliveredAt !== null
      ? [
          {
            jobId: state.id,
            destinationId: state.delivery.destinationId,
            paths: [...removablePaths(state.delivery)],
            deliveredAt: state.delivery.deliveredAt
          }
        ]
      : []
  )
  const record = subscriptionCommands(projectId, subscriptionId)
  const now = yield* Clock.currentTimeMillis
  if (fresh.length > 0) yield* record({ _tag: "RecordDeliveredEntries", subscriptionId, entries: fresh, now })
  const library = [...subscription.library, ...fresh]

  const past = new Set(entriesPastRetention(library, rule, now))
  const removed: Array<string> = []
  const failed: Array<string> = []
  const destinations = yield* DeliveryDestinations
  for (const entry of library.filter((candidate) => past.has(candidate.jobId))) {
    const done = yield* Effect.result(
      Effect.gen(function* () {
        const destination = yield* destinations.open(projectId, entry.destinationId)
        // The media first: a library that still sees a sidecar without its media shows nothing of it.
        for (const path of [...entry.paths].reverse()) yield* destination.remove(path)
        // On the job first (while its records live; once they are gone there is nothing to record there), then on
        // the subscription: a crash between the two is made up by the next round, which finds the entry still held.
        yield* jobCommands(
          projectId,
          entry.jobId
        )({ _tag: "RecordDeliveryRemoved", jobId: entry.jobId, subscriptionId, now }).pipe(
          Effect.catchTag("JobNotFound", () => Effect.void)
        )
      })
    )
    if (done._tag === "Success") removed.push(entry.jobId)
    else {
      failed.push(entry.jobId)
      yield* Effect.logWarning("retention could not remove a delivered entry; the next round tries again", {
        jobId: entry.jobId,
        error: String(done.failure)
      })
    }
  }
  if (removed.length > 0) yield* record({ _tag: "RecordRemovedEntries", subscriptionId, jobIds: removed, now })
  return { removed, failed } satisfies RetentionRound
})
