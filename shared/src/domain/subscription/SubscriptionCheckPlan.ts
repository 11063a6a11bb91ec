// Extension: what one check of a subscription makes of the entries it found (pure): which are new, filtered, to queue.
import type { SubscriptionFilters } from "./SubscriptionEvent.ts"
import type { Subscription } from "./SubscriptionState.ts"

/** An entry of the followed playlist as the check found it, newest first. */
export interface FoundEntry {
  readonly archiveKey: string
  /** The key the entry had before entries carried their extractor's id (formerArchiveKeyOf): seen under it is seen. */
  readonly formerArchiveKey: string
  /** Its id in the playlist (and in the check's batch). */
  readonly entryId: string
  readonly url: string
  readonly title: string
  readonly durationSeconds: number | null
  /** Epoch ms, when the platform says. */
  readonly publishedAt: number | null
}

export interface CheckPlan {
  readonly found: number
  /** Entries the subscription had not seen (on the first check: the backfill's newest, the rest is the baseline). */
  readonly fresh: ReadonlyArray<FoundEntry>
  /** Of the fresh entries, those the filters let go. */
  readonly filtered: number
  /** Fresh entries that pass the filters, newest first: each is queued unless the project's archive has it already. */
  readonly candidates: ReadonlyArray<FoundEntry>
  /** Archive keys seen for the first time (recorded, so later checks do not call them new). */
  readonly seen: ReadonlyArray<string>
}

export const passesFilters = (filters: SubscriptionFilters, entry: FoundEntry): boolean => {
  if (filters.titleContains !== undefined && !entry.title.toLowerCase().includes(filters.titleContains.toLowerCase())) return false
  if (filters.minDurationSeconds !== undefined && (entry.durationSeconds === null || entry.durationSeconds < filters.minDurationSeconds))
    return false
  if (filters.maxDurationSeconds !== undefined && (entry.durationSeconds === null || entry.durationSeconds > filters.maxDurationSeconds))
    return false
  // An entry without a date passes: flat playlists often say nothing of dates, and a filter must not hide every entry.
  if (filters.publishedAfter !== undefined && entry.publishedAt !== null && entry.publishedAt < filters.publishedAfter) return false
  return true
}

export const planCheck = (subscription: Subscription, entries: ReadonlyArray<FoundEntry>): CheckPlan => {
  // A playlist may list an entry twice: it counts once, at its newest place.
  const listed = new Set<string>()
  const unseen = entries.filter((entry) => {
    if (subscription.seen.has(entry.archiveKey) || subscription.seen.has(entry.formerArchiveKey) || listed.has(entry.archiveKey))
      return false
    listed.add(entry.archiveKey)
    return true
  })
  const fresh = subscription.lastCheck === null ? unseen.slice(0, subscription.backfill) : unseen
  const candidates = fresh.filter((entry) => passesFilters(subscription.filters, entry))
  return {
    found: entries.length,
    fresh,
    filtered: fresh.length - candidates.length,
    candidates,
    seen: unseen.map((entry) => entry.archiveKey)
  }
}
