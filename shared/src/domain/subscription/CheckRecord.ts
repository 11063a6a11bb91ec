// Extension: what a check records (pure): from its plan and the candidates it owns in the project's archive, the entries
// its batch queues and those that wait for a later check.
import type { QueuedEntry } from "./SubscriptionEvent.ts"
import type { OpenPlan, TrackedEntry } from "./SubscriptionState.ts"

export interface CheckRecord {
  /** The check's batch, in this order: the waiting entries queued again (the oldest first), then the new ones. */
  readonly queued: ReadonlyArray<QueuedEntry>
  /** New entries the check owns that its batch does not take (past the quota's limit): they wait. */
  readonly waiting: ReadonlyArray<QueuedEntry>
}

const asQueued = ({ archiveKey, entryId, url, title }: QueuedEntry): QueuedEntry => ({ archiveKey, entryId, url, title })

/**
 * The plan's waiting entries to queue again (still waiting: none was settled meanwhile) and the candidates this check
 * owns (`owned`: their archive keys), up to the plan's limit. Every run of the check computes the same record from the
 * same plan, since a claim's owner never changes: so two runs make one batch of the same entries.
 */
export const recordOfPlan = (plan: OpenPlan, entries: ReadonlyArray<TrackedEntry>, owned: ReadonlySet<string>): CheckRecord => {
  const waitingNow = new Map(entries.filter((entry) => entry.batchId === null).map((entry) => [entry.archiveKey, entry]))
  const requeued = plan.requeue.flatMap((key) => {
    const entry = waitingNow.get(key)
    return entry === undefined ? [] : [asQueued(entry)]
  })
  const fresh = plan.candidates.filter((entry) => owned.has(entry.archiveKey)).map(asQueued)
  const all = [...requeued, ...fresh]
  const queued = plan.limit === null ? all : all.slice(0, Math.max(0, plan.limit))
  const inBatch = new Set(queued.map((entry) => entry.archiveKey))
  return { queued, waiting: fresh.filter((entry) => !inBatch.has(entry.archiveKey)) }
}
