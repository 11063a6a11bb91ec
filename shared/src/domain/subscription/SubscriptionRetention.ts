// Extension: a delivering subscription's retention rule (keep its last N delivered entries, or those delivered within
// the last D days) and which of its delivered entries a retention round removes: a pure choice over the service's own
// records of what it delivered, never over a listing of the destination.
import { Schema } from "effect"

/**
 * The most delivered entries a subscription keeps: its library (the entries it may remove, in its state and so in
 * its read model's document, a few hundred bytes each) stays well under a document's 1 MB. A request asks at most this
 * many (`keep_last`); a `keep_days` rule lets the oldest go past it too.
 */
export const LIBRARY_MAX_ENTRIES = 1_000
export const MAX_KEEP_LAST = LIBRARY_MAX_ENTRIES
export const MAX_KEEP_DAYS = 3650
const DAY_MS = 86_400_000

/** What stored events may hold: rules recorded while requests could ask up to 10,000 are read as they were written. */
const STORED_MAX_KEEP_LAST = 10_000

export const SubscriptionRetention = Schema.Union([
  Schema.Struct({ keepLast: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: STORED_MAX_KEEP_LAST })) }),
  Schema.Struct({ keepDays: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_KEEP_DAYS })) })
])
export type SubscriptionRetention = typeof SubscriptionRetention.Type

/** The rule in words, as the dashboard and the CLI show it: "keeps the last 5", "keeps 30 days". */
export const retentionWords = (rule: SubscriptionRetention): string =>
  "keepLast" in rule ? `keeps the last ${rule.keepLast}` : `keeps ${rule.keepDays} days`

/** One entry the subscription delivered and still has in its destination. */
export interface DeliveredEntry {
  readonly jobId: string
  readonly deliveredAt: number
}

/**
 * The delivered entries the rule lets go: past the newest `keepLast` (by delivery time, then job id, so two rounds
 * choose alike), or delivered more than `keepDays` days before `now`; either way past the newest LIBRARY_MAX_ENTRIES.
 */
export const entriesPastRetention = (
  delivered: ReadonlyArray<DeliveredEntry>,
  rule: SubscriptionRetention,
  now: number
): ReadonlyArray<string> => {
  const newestFirst = [...delivered].sort((a, b) => b.deliveredAt - a.deliveredAt || (a.jobId < b.jobId ? 1 : a.jobId > b.jobId ? -1 : 0))
  const kept = "keepLast" in rule ? Math.min(rule.keepLast, LIBRARY_MAX_ENTRIES) : LIBRARY_MAX_ENTRIES
  const past = newestFirst.slice(kept)
  if ("keepLast" in rule) return past.map((entry) => entry.jobId)
  const outside = newestFirst.slice(0, kept).filter((entry) => entry.deliveredAt < now - rule.keepDays * DAY_MS)
  return [...outside, ...past].map((entry) => entry.jobId)
}
