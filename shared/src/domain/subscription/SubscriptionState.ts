// Extension: the subscription aggregate's state and evolve, folded from SubscriptionEvents.
import type { DownloadOptions } from "../job/DownloadOptions.ts"
import type { CheckError, SubscriptionEvent, SubscriptionFilters } from "./SubscriptionEvent.ts"

/** What the API shows: removed subscriptions are not found. */
export type SubscriptionStatus = "active" | "paused" | "failing"

/** A check after this many failures in a row marks the subscription failing. */
export const FAILURES_BEFORE_FAILING = 3

export interface LastCheck {
  readonly at: number
  readonly found: number
  readonly new: number
  readonly filtered: number
  readonly queued: number
}

export interface Subscription {
  readonly subscriptionId: string
  readonly projectId: string
  readonly url: string
  readonly platform: string
  readonly format: string
  readonly options?: DownloadOptions
  readonly checkEveryMs: number
  readonly filters: SubscriptionFilters
  readonly backfill: number
  readonly createdAt: number
  readonly paused: boolean
  readonly removed: boolean
  readonly lastCheck: LastCheck | null
  readonly nextCheckAt: number
  readonly failuresInARow: number
  readonly lastError: CheckError | null
  /** Archive keys of every entry any check of this subscription has seen. */
  readonly seen: ReadonlySet<string>
}

/** Everything a subscription's events say but the seen keys (which grow with every check): what lists show. */
export type SubscriptionSummary = Omit<Subscription, "seen">

/** null until SubscriptionCreated. */
export type SubscriptionState = Subscription | null

export const initialSubscriptionState = (): SubscriptionState => null

export const subscriptionStatus = (s: Pick<Subscription, "paused" | "failuresInARow">): SubscriptionStatus =>
  s.paused ? "paused" : s.failuresInARow >= FAILURES_BEFORE_FAILING ? "failing" : "active"

/** Is a check of this subscription due at `now`? Paused and removed ones are never due. */
export const isCheckDue = (state: Pick<Subscription, "removed" | "paused" | "nextCheckAt"> | null, now: number): boolean =>
  state !== null && !state.removed && !state.paused && now >= state.nextCheckAt

export const evolveSubscription = (state: SubscriptionState, event: SubscriptionEvent): SubscriptionState => {
  if (event._tag === "SubscriptionCreated") {
    if (state !== null) return state
    return {
      subscriptionId: event.subscriptionId,
      projectId: event.projectId,
      url: event.url,
      platform: event.platform,
      format: event.format,
      ...(event.options === undefined ? {} : { options: event.options }),
      checkEveryMs: event.checkEveryMs,
      filters: event.filters,
      backfill: event.backfill,
      createdAt: event.createdAt,
      paused: false,
      removed: false,
      lastCheck: null,
      // The first check runs at once.
      nextCheckAt: event.createdAt,
      failuresInARow: 0,
      lastError: null,
      seen: new Set()
    }
  }
  if (state === null || state.removed) return state
  switch (event._tag) {
    case "SubscriptionChecked":
      return {
        ...state,
        lastCheck: { at: event.at, found: event.found, new: event.new, filtered: event.filtered, queued: event.queued },
        nextCheckAt: event.nextCheckAt,
        failuresInARow: 0,
        lastError: null,
        seen: event.seen.length === 0 ? state.seen : new Set([...state.seen, ...event.seen])
      }
    case "SubscriptionEntriesQueued":
      return state
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
  }
}
