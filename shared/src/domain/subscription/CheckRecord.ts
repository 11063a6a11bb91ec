// Extension: what a check records (pure): its plan's counts and seen keys, or, when an earlier run of the same check
// already created its batch, that batch's entries and only what agrees with them.
import type { BatchEntry } from "../batch/BatchEvent.ts"
import { formerArchiveKeyOf } from "./ArchiveKey.ts"
import type { CheckPlan, FoundEntry } from "./SubscriptionCheckPlan.ts"
import type { QueuedEntry } from "./SubscriptionEvent.ts"

/** The counts and seen keys of RecordCheck. */
export interface CheckRecord {
  readonly found: number
  readonly fresh: number
  readonly filtered: number
  readonly seen: ReadonlyArray<string>
}

/** A check that claimed its entries and created its batch itself records its plan. */
export const recordOfPlan = (plan: CheckPlan): CheckRecord => ({
  found: plan.found,
  fresh: plan.fresh.length,
  filtered: plan.filtered,
  seen: plan.seen
})

/**
 * The entries of the check's batch (created by an earlier run of the check) as queued entries: each keyed as the feed
 * lists it now (by its id in the playlist). One the feed no longer lists gets its former key (`platform entryId`),
 * which every later check reads as seen too.
 */
export const queuedOfBatch = (
  entries: ReadonlyArray<BatchEntry>,
  found: ReadonlyArray<FoundEntry>,
  platform: string
): ReadonlyArray<QueuedEntry> =>
  entries.map((entry) => ({
    archiveKey: found.find((listed) => listed.entryId === entry.entryId)?.archiveKey ?? formerArchiveKeyOf(platform, entry.entryId),
    entryId: entry.entryId,
    url: entry.url,
    title: entry.title
  }))

/**
 * What a rerun of a check records when an earlier run (a process that died before recording) created the check's
 * batch: the batch's entries are what the check queued, and are seen. The candidates the batch lacks (entries that
 * appeared since the earlier run) are left to the next check: neither new nor seen here, so that check plans them
 * again and its own claim decides them.
 */
export const recordOfBatch = (plan: CheckPlan, queued: ReadonlyArray<QueuedEntry>): CheckRecord => {
  const batched = new Set(queued.map((entry) => entry.archiveKey))
  const left = new Set(plan.candidates.filter((entry) => !batched.has(entry.archiveKey)).map((entry) => entry.archiveKey))
  const fresh = new Set([...plan.fresh.map((entry) => entry.archiveKey).filter((key) => !left.has(key)), ...batched])
  return {
    found: plan.found,
    fresh: fresh.size,
    filtered: plan.filtered,
    seen: [...new Set([...plan.seen.filter((key) => !left.has(key)), ...batched])]
  }
}
