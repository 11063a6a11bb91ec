// Extension: whether the batch feeder may start the entries of a subscription's batch: only while the subscription is
// live, not paused, and has recorded the batch as its own with entries in flight there.
import type { FeedGate } from "../batch/BatchFeed.ts"
import type { SubscriptionState } from "./SubscriptionState.ts"

/**
 * Open while the subscription's record names the batch (entries in flight there) and it is neither paused nor removed;
 * held while it is paused, or before the check recorded the batch (a check that met a pause or a removal between its
 * batch and its record; a rerun records it later), or once its entries went back to waiting (the batch ended before
 * they started: a later check queues them, not this batch); closed once it is removed (the batch is canceled).
 */
export const subscriptionBatchGate = (state: SubscriptionState, batchId: string): FeedGate => {
  if (state === null || state.removed) return "closed"
  if (state.paused) return "held"
  return state.entries.some((entry) => entry.batchId === batchId) ? "open" : "held"
}
