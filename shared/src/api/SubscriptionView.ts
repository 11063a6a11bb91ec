// Extension: a subscription as /v1 answers it (and its webhooks carry it), from its state or its list read model's document.
import type { SubscriptionBody } from "./Subscriptions.ts"
import { formatIdOf } from "../domain/media/FormatId.ts"
import type { SubscriptionFilters } from "../domain/subscription/SubscriptionEvent.ts"
import { type SubscriptionSummary, subscriptionStatus } from "../domain/subscription/SubscriptionState.ts"

const iso = (ms: number) => new Date(ms).toISOString()

/** The entries not done yet an answer lists (every one is counted). */
const PENDING_SHOWN = 100

const filtersBody = (filters: SubscriptionFilters): SubscriptionBody["filters"] => ({
  ...(filters.titleContains === undefined ? {} : { title_contains: filters.titleContains }),
  ...(filters.minDurationSeconds === undefined ? {} : { min_duration: filters.minDurationSeconds }),
  ...(filters.maxDurationSeconds === undefined ? {} : { max_duration: filters.maxDurationSeconds }),
  ...(filters.publishedAfter === undefined ? {} : { published_after: iso(filters.publishedAfter) })
})

export const toSubscriptionBody = (s: SubscriptionSummary): SubscriptionBody => ({
  id: s.subscriptionId,
  url: s.url,
  platform: s.platform,
  format: formatIdOf(s.format),
  status: subscriptionStatus(s),
  check_every: Math.round(s.checkEveryMs / 1000),
  filters: filtersBody(s.filters),
  backfill: s.backfill,
  ...(s.retention === undefined
    ? {}
    : { retention: "keepLast" in s.retention ? { keep_last: s.retention.keepLast } : { keep_days: s.retention.keepDays } }),
  created_at: iso(s.createdAt),
  last_check:
    s.lastCheck === null
      ? null
      : {
          at: iso(s.lastCheck.at),
          found: s.lastCheck.found,
          new: s.lastCheck.new,
          filtered: s.lastCheck.filtered,
          queued: s.lastCheck.queued
        },
  next_check_at: s.paused ? null : iso(s.nextCheckAt),
  last_error: s.lastError,
  entries: {
    in_flight: s.entries.filter((entry) => entry.batchId !== null).length,
    waiting: s.entries.filter((entry) => entry.batchId === null).length,
    downloaded: s.downloaded,
    given_up: s.givenUp
  },
  pending_entries: s.entries.slice(0, PENDING_SHOWN).map((entry) => ({
    entry_id: entry.entryId,
    title: entry.title,
    url: entry.url,
    batch_id: entry.batchId,
    failed_tries: entry.failures,
    waiting_for: entry.waitingFor
  })),
  given_up_entries: s.lastGivenUp.map((entry) => ({
    entry_id: entry.entryId,
    title: entry.title,
    url: entry.url,
    reason: entry.reason,
    at: iso(entry.at)
  }))
})
