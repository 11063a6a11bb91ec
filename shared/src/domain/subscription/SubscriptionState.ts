// Extension: the subscription aggregate's state and evolve, folded from SubscriptionEvents.
import { withSeen } from "./SeenKeys.ts"
import type { CheckError, EntryOutcome, LibraryEntry, QueuedEntry, SubscriptionDefinition, SubscriptionEvent } from "./SubscriptionEvent.ts"

/** What the API shows: removed subscriptions are not found. */
export type SubscriptionStatus = "active" | "paused" | "failing"

/** A check after this many failures in a row marks the subscription failing. */
export const FAILURES_BEFORE_FAILING = 3

/** The given-up entries a subscription shows (the newest first); older ones are only counted. */
export const GIVEN_UP_SHOWN = 20

export interface LastCheck {
  readonly at: number
  readonly found: number
  readonly new: number
  readonly filtered: number
  readonly queued: number
}

/** An entry the subscription owns and has not done yet: in flight in a batch, or waiting for a later check. */
export interface TrackedEntry extends QueuedEntry {
  /** Runs of its jobs that failed (an entry gets two tries). */
  readonly failures: number
  /** The batch it is in flight in; null while it waits for a check to queue it (again). */
  readonly batchId: string | null
  /** Why it waits (the quota, a failed run, a batch that ended before it started), or null while in flight. */
  readonly waitingFor: CheckError | null
}

/** An entry given up, as the subscription shows it. */
export interface GivenUpEntry extends QueuedEntry {
  readonly reason: CheckError
  readonly at: number
}

/** A check's plan, recorded before its claims and open until the check is recorded (SubscriptionCheckPlanned). */
export interface OpenPlan {
  readonly dueAt: number
  readonly at: number
  readonly mediaId: string
  readonly platform: string
  readonly found: number
  readonly new: number
  readonly filtered: number
  readonly candidates: ReadonlyArray<QueuedEntry>
  readonly requeue: ReadonlyArray<string>
  readonly limit: number | null
  readonly hold: CheckError | null
}

export interface Subscription extends SubscriptionDefinition {
  readonly createdAt: number
  readonly paused: boolean
  readonly removed: boolean
  readonly lastCheck: LastCheck | null
  readonly nextCheckAt: number
  readonly failuresInARow: number
  readonly lastError: CheckError | null
  /** Digests of the archive keys its checks have seen, oldest first, at most SEEN_LIMIT (SeenKeys.ts). */
  readonly seen: ReadonlySet<string>
  /** The plan of the check under way, or null between checks. */
  readonly plan: OpenPlan | null
  /** The entries it owns and has not done yet, in the order they were found (the oldest first). */
  readonly entries: ReadonlyArray<TrackedEntry>
  /** Entries downloaded, and given up, since it was created. */
  readonly downloaded: number
  readonly givenUp: number
  /** The last GIVEN_UP_SHOWN entries given up, the newest first. */
  readonly lastGivenUp: ReadonlyArray<GivenUpEntry>
  /** A retained subscription's delivered entries not removed yet, in the order they were recorded. */
  readonly library: ReadonlyArray<LibraryEntry>
}

/** Everything a subscription's events say but the seen keys: what lists show. */
export type SubscriptionSummary = Omit<Subscription, "seen">

/** null until SubscriptionCreated. */
export type SubscriptionState = Subscription | null

export const initialSubscriptionState = (): SubscriptionState => null

export const subscriptionStatus = (s: Pick<Subscription, "paused" | "failuresInARow">): SubscriptionStatus =>
  s.paused ? "paused" : s.failuresInARow >= FAILURES_BEFORE_FAILING ? "failing" : "active"

/** Is a check of this subscription due at `now`? Paused and removed ones are never due. */
export const isCheckDue = (state: Pick<Subscription, "removed" | "paused" | "nextCheckAt"> | null, now: number): boolean =>
  state !== null && !state.removed && !state.paused && now >= state.nextCheckAt

/** Entries in flight in a batch: their outcome is still to be read from the batch and its jobs. */
export const inFlightEntries = (state: Pick<Subscription, "entries">): ReadonlyArray<TrackedEntry> =>
  state.entries.filter((entry) => entry.batchId !== null)

const toTracked = (entry: QueuedEntry, batchId: string | null, waitingFor: CheckError | null, failures = 0): TrackedEntry => ({
  archiveKey: entry.archiveKey,
  entryId: entry.entryId,
  url: entry.url,
  title: entry.title,
  failures,
  batchId,
  waitingFor
})

/** A v2 batch: its entries are in flight there (a requeued one keeps its failures); the rest of the entries stay. */
const withBatch = (entries: ReadonlyArray<TrackedEntry>, batchId: string, queued: ReadonlyArray<QueuedEntry>) => {
  const byKey = new Map(queued.map((entry) => [entry.archiveKey, entry]))
  const kept = entries.map((entry) => (byKey.has(entry.archiveKey) ? { ...entry, batchId, waitingFor: null } : entry))
  const known = new Set(entries.map((entry) => entry.archiveKey))
  return [...kept, ...queued.filter((entry) => !known.has(entry.archiveKey)).map((entry) => toTracked(entry, batchId, null))]
}

const settled = (state: Subscription, outcomes: ReadonlyArray<EntryOutcome>, at: number): Subscription => {
  let { downloaded, givenUp, lastGivenUp } = state
  let entries = state.entries
  for (const outcome of outcomes) {
    const entry = entries.find((e) => e.archiveKey === outcome.archiveKey && e.batchId === outcome.batchId)
    if (entry === undefined) continue
    if (outcome.result === "waiting") {
      entries = entries.map((e) =>
        e === entry ? { ...e, batchId: null, failures: e.failures + (outcome.failed ? 1 : 0), waitingFor: outcome.reason } : e
      )
      continue
    }
    entries = entries.filter((e) => e !== entry)
    if (outcome.result === "downloaded") downloaded++
    else {
      givenUp++
      const reason = outcome.reason ?? { code: "given_up", message: "The entry was given up." }
      const shown: GivenUpEntry = { archiveKey: entry.archiveKey, entryId: entry.entryId, url: entry.url, title: entry.title, reason, at }
      lastGivenUp = [shown, ...lastGivenUp].slice(0, GIVEN_UP_SHOWN)
    }
  }
  return { ...state, entries, downloaded, givenUp, lastGivenUp }
}

export const evolveSubscription = (state: SubscriptionState, event: SubscriptionEvent): SubscriptionState => {
  if (event._tag === "SubscriptionCreated") {
    if (state !== null) return state
    const { _tag, v, ...created } = event
    return {
      ...created,
      paused: false,
      removed: false,
      lastCheck: null,
      // The first check runs at once.
      nextCheckAt: event.createdAt,
      failuresInARow: 0,
      lastError: null,
      seen: new Set(),
      plan: null,
      entries: [],
      downloaded: 0,
      givenUp: 0,
      lastGivenUp: [],
      library: []
    }
  }
  if (state === null || state.removed) return state
  switch (event._tag) {
    case "SubscriptionCheckPlanned": {
      if (state.plan !== null) return state
      const { dueAt, at, mediaId, platform, found, filtered, candidates, requeue, limit, hold } = event
      return {
        ...state,
        plan: { dueAt, at, mediaId, platform, found, new: event.new, filtered, candidates, requeue, limit, hold },
        seen: withSeen(state.seen, event.seen, event.refreshed)
      }
    }
    case "SubscriptionChecked": {
      const lastCheck = { at: event.at, found: event.found, new: event.new, filtered: event.filtered, queued: event.queued }
      const checked = { ...state, lastCheck, nextCheckAt: event.nextCheckAt, failuresInARow: 0, lastError: null, plan: null }
      if (event.v === 1) return { ...checked, seen: withSeen(state.seen, event.seen) }
      // Every waiting entry the plan took waits for the plan's reason until its batch (the next event) says otherwise.
      const waitingFor = state.plan?.hold ?? null
      const requeued = new Set(state.plan?.requeue ?? [])
      const kept = state.entries.map((entry) =>
        entry.batchId === null && requeued.has(entry.archiveKey) && waitingFor !== null ? { ...entry, waitingFor } : entry
      )
      const known = new Set(state.entries.map((entry) => entry.archiveKey))
      const waiting = (event.waiting ?? []).filter((entry) => !known.has(entry.archiveKey))
      return { ...checked, entries: [...kept, ...waiting.map((entry) => toTracked(entry, null, waitingFor))] }
    }
    case "SubscriptionEntriesQueued":
      // A v1 check was done with its entries once it queued them: nothing to follow.
      return event.v === 1 ? state : { ...state, entries: withBatch(state.entries, event.batchId, event.entries) }
    case "SubscriptionEntriesSettled":
      return settled(state, event.outcomes, event.at)
    case "SubscriptionCheckFailed":
      return { ...state, failuresInARow: event.failuresInARow, lastError: event.error, nextCheckAt: event.nextCheckAt }
    case "SubscriptionFailing":
      return state
    case "SubscriptionCheckDue":
      return { ...state, nextCheckAt: event.dueAt }
    case "SubscriptionPaused":
      return { ...state, paused: true }
    case "SubscriptionResumed":
      return { ...state, paused: false }
    case "SubscriptionRemoved":
      return { ...state, removed: true }
    case "SubscriptionEntriesDelivered": {
      const known = new Set(state.library.map((entry) => entry.jobId))
      return { ...state, library: [...state.library, ...event.entries.filter((entry) => !known.has(entry.jobId))] }
    }
    case "SubscriptionEntriesRemoved": {
      const removed = new Set(event.jobIds)
      return { ...state, library: state.library.filter((entry) => !removed.has(entry.jobId)) }
    }
  }
}
