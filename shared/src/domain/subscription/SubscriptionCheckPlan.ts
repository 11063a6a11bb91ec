// Extension: what one check of a subscription makes of the entries it found (pure): which are new, filtered, to queue,
// and what the project's quota lets it queue now.
import type { QuotaStanding } from "../admission/Quota.ts"
import { listedAtRisk, seenDigest } from "./SeenKeys.ts"
import type { CheckError, SubscriptionFilters } from "./SubscriptionEvent.ts"
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

/** What the project's quota lets a check queue now: at most `limit` entries (null: all), the rest wait for `hold`. */
export interface CheckAdmission {
  readonly limit: number | null
  readonly hold: CheckError | null
}

export const ADMIT_ALL: CheckAdmission = { limit: null, hold: null }

const quotaNames: Readonly<Record<QuotaStanding["quota"], string>> = {
  jobs_per_day: "jobs per day",
  bytes_per_month: "bytes per month"
}

/**
 * A check consults the project's quotas: one used up holds every entry back (they wait, and a later check queues them
 * once it resets or is raised); jobs per day left cap how many go into the check's batch.
 */
export const admissionOfQuota = (standings: ReadonlyArray<QuotaStanding>): CheckAdmission => {
  const hold = (standing: QuotaStanding, what: string): CheckError => ({
    code: "quota_exceeded",
    message: `${what} the project's ${quotaNames[standing.quota]} quota (${standing.limit}); it resets at ${new Date(standing.resetAt).toISOString()}.`
  })
  const exhausted = standings.find((standing) => standing.limit !== null && standing.used >= standing.limit)
  if (exhausted !== undefined) return { limit: 0, hold: hold(exhausted, "Waiting for") }
  const jobs = standings.find((standing) => standing.quota === "jobs_per_day" && standing.limit !== null)
  if (jobs === undefined || jobs.limit === null) return ADMIT_ALL
  return { limit: jobs.limit - jobs.used, hold: hold(jobs, "Past the jobs left today by") }
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
  /** Digests of seen keys the feed still lists that the new ones would let go: kept instead (SeenKeys.ts). */
  readonly refreshed: ReadonlyArray<string>
  /** The subscription's waiting entries, queued again by this check (the oldest first). */
  readonly requeue: ReadonlyArray<string>
  readonly limit: number | null
  readonly hold: CheckError | null
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

/**
 * What a check makes of the entries it found: the new ones (not seen by an earlier check), of those the ones the filters
 * let through (the candidates, unless the subscription already owns them), and its waiting entries to queue again, as
 * far as the project's quota admits.
 */
export const planCheck = (
  subscription: Subscription,
  entries: ReadonlyArray<FoundEntry>,
  admission: CheckAdmission = ADMIT_ALL
): CheckPlan => {
  const { seen } = subscription
  // A playlist may list an entry twice: it counts once, at its newest place.
  const listed = new Set<string>()
  const unseen = entries.filter((entry) => {
    if (seen.has(seenDigest(entry.archiveKey)) || seen.has(seenDigest(entry.formerArchiveKey)) || listed.has(entry.archiveKey)) return false
    listed.add(entry.archiveKey)
    return true
  })
  const fresh = subscription.lastCheck === null ? unseen.slice(0, subscription.backfill) : unseen
  const owned = new Set(subscription.entries.map((entry) => entry.archiveKey))
  const passing = fresh.filter((entry) => passesFilters(subscription.filters, entry))
  const listedDigests = new Set(entries.flatMap((entry) => [seenDigest(entry.archiveKey), seenDigest(entry.formerArchiveKey)]))
  return {
    found: entries.length,
    fresh,
    filtered: fresh.length - passing.length,
    candidates: passing.filter((entry) => !owned.has(entry.archiveKey)),
    seen: unseen.map((entry) => entry.archiveKey),
    refreshed: listedAtRisk(seen, unseen.length, listedDigests),
    requeue: subscription.entries.filter((entry) => entry.batchId === null).map((entry) => entry.archiveKey),
    limit: admission.limit,
    hold: admission.hold
  }
}
