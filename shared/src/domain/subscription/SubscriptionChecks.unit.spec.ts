// Specifications of the subscription checks' reaction: given a subscription's events, when woken at a time, then these
// commands; and which live subscriptions the reconcile reads the state of.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { ReactionSpecification } from "../ReactionSpecification.ts"
import { type CheckSnapshot, type CheckTrigger, mayHaveWork, react } from "./SubscriptionChecks.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"
import {
  checkPlanned,
  entriesQueued,
  HOUR,
  planChecked,
  queuedEntry,
  SUBSCRIPTION_ID,
  subscriptionChecked,
  subscriptionCreated,
  T0
} from "../../../../test/support/SubscriptionEvents.ts"

const subscriptionId = SUBSCRIPTION_ID
const created = subscriptionCreated()
const checked = (at: number): SubscriptionEvent => subscriptionChecked(at, { found: 2 })
const failed = (at: number, retryAt: number): SubscriptionEvent => ({
  _tag: "SubscriptionCheckFailed",
  v: 1,
  subscriptionId,
  at,
  error: { code: "resolve_failed", message: "the feed answered 503" },
  failuresInARow: 1,
  nextCheckAt: retryAt
})
const checkNow = (dueAt: number): SubscriptionEvent => ({ _tag: "SubscriptionCheckDue", v: 1, subscriptionId, dueAt })
const paused: SubscriptionEvent = { _tag: "SubscriptionPaused", v: 1, subscriptionId, at: T0 + 10 }
const resumed: SubscriptionEvent = { _tag: "SubscriptionResumed", v: 1, subscriptionId, at: T0 + 20 }
const removed: SubscriptionEvent = { _tag: "SubscriptionRemoved", v: 1, subscriptionId, at: T0 + 30 }
/** A first check that queued one entry, in flight in bat_1. */
const queuedOne: ReadonlyArray<SubscriptionEvent> = [
  created,
  checkPlanned(T0, T0 + 1, { candidates: [queuedEntry("a")] }),
  planChecked(T0, T0 + 2),
  entriesQueued("bat_1", [queuedEntry("a")], T0 + 2)
]

const given = (events: ReadonlyArray<SubscriptionEvent>) => ReactionSpecification.for(react)(foldEvents(SubscriptionDecider, events))
const woken = (now: number): CheckTrigger => ({ _tag: "SubscriptionRecorded", now })
const reconciled = (now: number): CheckTrigger => ({ _tag: "Reconcile", now })

describe("the subscription checks' reaction", () => {
  it("a new subscription's first check runs at once, woken by its creation or found by a reconcile", () => {
    given([created])
      .when(woken(T0))
      .then([{ _tag: "RunCheck", dueAt: T0 }])
    given([created])
      .when(reconciled(T0 + 5))
      .then([{ _tag: "RunCheck", dueAt: T0 }])
  })

  it("a checked subscription asks for nothing until its next check's time; then a reconcile runs that check", () => {
    given([created, checked(T0 + 1_000)])
      .when(woken(T0 + 1_000))
      .thenNothing()
    given([created, checked(T0 + 1_000)])
      .when(reconciled(T0 + 1_000 + HOUR - 1))
      .thenNothing()
    given([created, checked(T0 + 1_000)])
      .when(reconciled(T0 + 1_000 + HOUR))
      .then([{ _tag: "RunCheck", dueAt: T0 + 1_000 + HOUR }])
  })

  it("a check missed while everything was down runs once, for its one due time, however late", () => {
    given([created, checked(T0 + 1_000)])
      .when(reconciled(T0 + 5 * HOUR))
      .then([{ _tag: "RunCheck", dueAt: T0 + 1_000 + HOUR }])
  })

  it("check now makes the check of its time due; a failed check is run again at its retry time", () => {
    given([created, checked(T0 + 1_000), checkNow(T0 + 2_000)])
      .when(woken(T0 + 2_000))
      .then([{ _tag: "RunCheck", dueAt: T0 + 2_000 }])
    given([created, failed(T0 + 1_000, T0 + 61_000)])
      .when(woken(T0 + 1_000))
      .thenNothing()
    given([created, failed(T0 + 1_000, T0 + 61_000)])
      .when(reconciled(T0 + 61_000))
      .then([{ _tag: "RunCheck", dueAt: T0 + 61_000 }])
  })

  it("entries in flight are looked at on every round, before a due check, which then sees which of them wait again", () => {
    given(queuedOne)
      .when(reconciled(T0 + 60_000))
      .then([{ _tag: "Settle" }])
    given([...queuedOne, checkNow(T0 + 70_000)])
      .when(woken(T0 + 70_000))
      .then([{ _tag: "Settle" }, { _tag: "RunCheck", dueAt: T0 + 70_000 }])
    // Paused: what its entries became is still recorded; no check runs.
    given([...queuedOne, paused])
      .when(reconciled(T0 + 5 * HOUR))
      .then([{ _tag: "Settle" }])
  })

  it("a paused subscription is not checked, however late; resumed, its due check runs", () => {
    given([created, paused])
      .when(reconciled(T0 + 5 * HOUR))
      .thenNothing()
    given([created, paused, resumed])
      .when(woken(T0 + 5 * HOUR))
      .then([{ _tag: "RunCheck", dueAt: T0 }])
  })

  it("a removed subscription stops being checked, entries in flight or not; one not created yet asks for nothing", () => {
    given([created, removed])
      .when(reconciled(T0 + 5 * HOUR))
      .then([{ _tag: "StopChecking" }])
    given([...queuedOne, removed])
      .when(reconciled(T0 + 5 * HOUR))
      .then([{ _tag: "StopChecking" }])
    given([]).when(woken(T0)).thenNothing()
  })
})

describe("which live subscriptions a reconcile reads", () => {
  const row = (fields: Partial<CheckSnapshot> = {}): CheckSnapshot => ({
    removed: false,
    paused: false,
    nextCheckAt: T0 + HOUR,
    inFlight: 0,
    ...fields
  })

  it("one whose check is due, or whose entries are in flight (their jobs may have ended)", () => {
    expect(mayHaveWork(row(), T0)).toBe(false)
    expect(mayHaveWork(row(), T0 + HOUR)).toBe(true)
    expect(mayHaveWork(row({ inFlight: 2 }), T0)).toBe(true)
  })

  it("a paused one only for its entries in flight", () => {
    expect(mayHaveWork(row({ paused: true }), T0 + HOUR)).toBe(false)
    expect(mayHaveWork(row({ paused: true, inFlight: 1 }), T0)).toBe(true)
  })
})
