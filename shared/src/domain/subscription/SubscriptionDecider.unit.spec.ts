// Specifications of the subscription aggregate: created, checked, entries found and queued, paused, resumed, failing, removed.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { archiveKeyOf } from "./ArchiveKey.ts"
import { planCheck } from "./SubscriptionCheckPlan.ts"
import { FIRST_RETRY_MS, MIN_CHECK_EVERY_MS, retryDelayMs, SubscriptionDecider } from "./SubscriptionDecider.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"
import {
  foundEntry,
  HOUR,
  SUBSCRIPTION_ID,
  subscriptionChecked,
  subscriptionCreated,
  T0
} from "../../../../test/support/SubscriptionEvents.ts"
import { isCheckDue, type Subscription, subscriptionStatus } from "./SubscriptionState.ts"

const given = DeciderSpecification.for(SubscriptionDecider)
const subscriptionId = SUBSCRIPTION_ID
const created: SubscriptionEvent = subscriptionCreated()
/** What CreateSubscription is given: the created event's fields. */
const { _tag: _created, v: _v, createdAt: _createdAt, ...fields } = subscriptionCreated()
const checked = (at: number, seen: ReadonlyArray<string>, counts = { found: 0, new: 0, filtered: 0, queued: 0 }): SubscriptionEvent =>
  subscriptionChecked(at, { ...counts, seen })
const error = { code: "resolve_failed", message: "the feed answered 503" }
const failed = (at: number, failuresInARow: number): SubscriptionEvent => ({
  _tag: "SubscriptionCheckFailed",
  v: 1,
  subscriptionId,
  at,
  error,
  failuresInARow,
  nextCheckAt: at + retryDelayMs(failuresInARow, HOUR)
})
const paused: SubscriptionEvent = { _tag: "SubscriptionPaused", v: 1, subscriptionId, at: T0 + 5 }
const removed: SubscriptionEvent = { _tag: "SubscriptionRemoved", v: 1, subscriptionId, at: T0 + 6 }
const stateOf = (events: ReadonlyArray<SubscriptionEvent>) => foldEvents(SubscriptionDecider, events) as Subscription

const entry = foundEntry

describe("SubscriptionDecider", () => {
  const create = { _tag: "CreateSubscription", ...fields, now: T0 } as const

  it("creates a subscription whose first check is due at once", () => {
    given([]).when(create).then([created])
    expect(isCheckDue(stateOf([created]), T0)).toBe(true)
  })

  it("refuses a second creation, an interval under 15 minutes and a backfill outside 0..50", () => {
    given([created]).when(create).thenRejects("SubscriptionAlreadyExists")
    given([])
      .when({ ...create, checkEveryMs: MIN_CHECK_EVERY_MS - 1 })
      .thenRejects("InvalidSubscription")
    given([])
      .when({ ...create, backfill: 51 })
      .thenRejects("InvalidSubscription")
  })

  it("records a check once: another runner of the same check (by its due time) records nothing", () => {
    const record = {
      _tag: "RecordCheck",
      subscriptionId,
      dueAt: T0,
      now: T0 + 1,
      found: 0,
      fresh: 0,
      filtered: 0,
      seen: [],
      queued: null
    } as const
    given([created, checked(T0 + 1, [])])
      .when(record)
      .thenNothing()
    given([created, checked(T0 + 1, [])])
      .when({ _tag: "RecordCheckFailure", subscriptionId, dueAt: T0, now: T0 + 2, error })
      .thenNothing()
  })

  it("records a check; the next is due one interval later", () => {
    const record = {
      _tag: "RecordCheck",
      dueAt: T0,
      subscriptionId,
      now: T0 + 1,
      found: 2,
      fresh: 0,
      filtered: 0,
      seen: ["a", "b"],
      queued: null
    } as const
    given([created])
      .when(record)
      .then([checked(T0 + 1, ["a", "b"], { found: 2, new: 0, filtered: 0, queued: 0 })])
    const state = stateOf([created, checked(T0 + 1, ["a", "b"])])
    expect(isCheckDue(state, T0 + HOUR)).toBe(false)
    expect(isCheckDue(state, T0 + 1 + HOUR)).toBe(true)
  })

  it("records the entries a check queued, as one batch", () => {
    const entries = [{ archiveKey: "generic c", entryId: "ent_c", url: "https://media.example.com/c.mp3", title: "c" }]
    given([created, checked(T0 + 1, ["a"])])
      .when({
        _tag: "RecordCheck",
        subscriptionId,
        dueAt: T0 + 1 + HOUR,
        now: T0 + HOUR,
        found: 2,
        fresh: 1,
        filtered: 0,
        seen: ["generic c"],
        queued: { batchId: "bat_1", entries }
      })
      .then([
        checked(T0 + HOUR, ["generic c"], { found: 2, new: 1, filtered: 0, queued: 1 }),
        { _tag: "SubscriptionEntriesQueued", v: 1, subscriptionId, batchId: "bat_1", entries, at: T0 + HOUR }
      ])
  })

  it("a failing check is retried with backoff; the third in a row makes it failing, once; a success recovers it", () => {
    given([created])
      .when({ _tag: "RecordCheckFailure", subscriptionId, dueAt: T0, now: T0 + 1, error })
      .then([failed(T0 + 1, 1)])
    given([created, failed(T0 + 1, 1), failed(T0 + 2, 2)])
      .when({ _tag: "RecordCheckFailure", subscriptionId, dueAt: T0 + 2 + retryDelayMs(2, HOUR), now: T0 + 3, error })
      .then([failed(T0 + 3, 3), { _tag: "SubscriptionFailing", v: 1, subscriptionId, error, at: T0 + 3 }])
    given([created, failed(T0 + 1, 1), failed(T0 + 2, 2), failed(T0 + 3, 3)])
      .when({ _tag: "RecordCheckFailure", subscriptionId, dueAt: T0 + 3 + retryDelayMs(3, HOUR), now: T0 + 4, error })
      .then([failed(T0 + 4, 4)])
    const failing = stateOf([created, failed(T0 + 1, 1), failed(T0 + 2, 2), failed(T0 + 3, 3)])
    expect(subscriptionStatus(failing)).toBe("failing")
    expect(failing.lastError).toEqual(error)
    const recovered = stateOf([created, failed(T0 + 1, 1), failed(T0 + 2, 2), failed(T0 + 3, 3), checked(T0 + 9, [])])
    expect(subscriptionStatus(recovered)).toBe("active")
    expect(recovered.lastError).toBeNull()
  })

  it("backs off 1, 2, 4 ... minutes, never longer than the interval", () => {
    expect([1, 2, 3, 4].map((n) => retryDelayMs(n, HOUR))).toEqual([
      FIRST_RETRY_MS,
      2 * FIRST_RETRY_MS,
      4 * FIRST_RETRY_MS,
      8 * FIRST_RETRY_MS
    ])
    expect(retryDelayMs(12, HOUR)).toBe(HOUR)
  })

  it("pauses and resumes once each; a paused subscription is never due, and a check missed meanwhile runs once on resume", () => {
    given([created])
      .when({ _tag: "PauseSubscription", subscriptionId, now: T0 + 5 })
      .then([paused])
    given([created, paused])
      .when({ _tag: "PauseSubscription", subscriptionId, now: T0 + 6 })
      .thenNothing()
    expect(isCheckDue(stateOf([created, paused]), T0 + 10 * HOUR)).toBe(false)
    const resumed: SubscriptionEvent = { _tag: "SubscriptionResumed", v: 1, subscriptionId, at: T0 + 10 * HOUR }
    given([created, paused])
      .when({ _tag: "ResumeSubscription", subscriptionId, now: T0 + 10 * HOUR })
      .then([resumed])
    expect(isCheckDue(stateOf([created, paused, resumed]), T0 + 10 * HOUR)).toBe(true)
    given([created]).when({ _tag: "ResumeSubscription", subscriptionId, now: T0 }).thenNothing()
  })

  it("check now makes a check due at once; a paused subscription must be resumed first", () => {
    given([created, checked(T0 + 1, [])])
      .when({ _tag: "CheckNow", subscriptionId, now: T0 + 2 })
      .then([{ _tag: "SubscriptionCheckDue", v: 1, subscriptionId, dueAt: T0 + 2 }])
    given([created, paused])
      .when({ _tag: "CheckNow", subscriptionId, now: T0 + 6 })
      .thenRejects("SubscriptionPausedNow")
  })

  it("check now while a check is due (running or about to) is that check: its due time, and so its record, stay", () => {
    // The first check is due at creation.
    given([created])
      .when({ _tag: "CheckNow", subscriptionId, now: T0 + 2 })
      .thenNothing()
    // A check due an hour after the last one, asked for when that hour has passed.
    given([created, checked(T0 + 1, [])])
      .when({ _tag: "CheckNow", subscriptionId, now: T0 + 1 + HOUR })
      .thenNothing()
    // ... whose record (keyed by that due time) is then taken.
    given([created, checked(T0 + 1, [])])
      .when({
        _tag: "RecordCheck",
        subscriptionId,
        dueAt: T0 + 1 + HOUR,
        now: T0 + 2 + HOUR,
        found: 1,
        fresh: 0,
        filtered: 0,
        seen: [],
        queued: null
      })
      .then([
        {
          _tag: "SubscriptionChecked",
          v: 1,
          subscriptionId,
          at: T0 + 2 + HOUR,
          found: 1,
          new: 0,
          filtered: 0,
          queued: 0,
          seen: [],
          nextCheckAt: T0 + 2 + 2 * HOUR
        }
      ])
  })

  it("a removed subscription is not found; a check that was running when it went records nothing", () => {
    given([created])
      .when({ _tag: "RemoveSubscription", subscriptionId, now: T0 + 6 })
      .then([removed])
    given([created, removed])
      .when({ _tag: "RemoveSubscription", subscriptionId, now: T0 + 7 })
      .thenNothing()
    given([created, removed])
      .when({ _tag: "CheckNow", subscriptionId, now: T0 + 7 })
      .thenRejects("SubscriptionNotFound")
    given([created, removed])
      .when({ _tag: "RecordCheck", subscriptionId, dueAt: T0, now: T0 + 7, found: 1, fresh: 1, filtered: 0, seen: ["x"], queued: null })
      .thenNothing()
    expect(isCheckDue(stateOf([created, removed]), T0 + 10 * HOUR)).toBe(false)
  })
})

describe("planCheck", () => {
  const subscription = (events: ReadonlyArray<SubscriptionEvent>) => stateOf(events)

  it("the first check is the baseline: nothing is new without backfill, and every entry is seen", () => {
    const plan = planCheck(subscription([created]), [entry("3"), entry("2"), entry("1")])
    expect(plan).toMatchObject({ found: 3, fresh: [], filtered: 0, candidates: [] })
    expect(plan.seen).toEqual(["generic 3", "generic 2", "generic 1"])
  })

  it("backfill queues the newest entries of the first check", () => {
    const plan = planCheck(subscription([{ ...created, backfill: 2 } as SubscriptionEvent]), [entry("3"), entry("2"), entry("1")])
    expect(plan.candidates.map((e) => e.archiveKey)).toEqual(["generic 3", "generic 2"])
    expect(plan.seen).toHaveLength(3)
  })

  it("a later check calls new only what no earlier check saw, once even if listed twice", () => {
    const state = subscription([created, checked(T0 + 1, ["generic 2", "generic 1"])])
    const plan = planCheck(state, [entry("4"), entry("3"), entry("4"), entry("2"), entry("1")])
    expect(plan.fresh.map((e) => e.archiveKey)).toEqual(["generic 4", "generic 3"])
    expect(plan.seen).toEqual(["generic 4", "generic 3"])
    expect(plan.found).toBe(5)
  })

  it("filters let go new entries by title, duration and date, and count them", () => {
    const state = subscription([
      {
        ...created,
        filters: { titleContains: "live", minDurationSeconds: 60, maxDurationSeconds: 3600, publishedAfter: T0 }
      } as SubscriptionEvent,
      checked(T0 + 1, [])
    ])
    const plan = planCheck(state, [
      entry("ok", { title: "LIVE at the hall" }),
      entry("title", { title: "Studio" }),
      entry("short", { title: "live", durationSeconds: 30 }),
      entry("long", { title: "live", durationSeconds: 7200 }),
      entry("old", { title: "live", publishedAt: T0 - 1 }),
      entry("unknown-length", { title: "live", durationSeconds: null })
    ])
    expect(plan.candidates.map((e) => e.archiveKey)).toEqual(["generic ok"])
    expect(plan.filtered).toBe(5)
  })

  it("published_after lets an entry through from that instant on; an entry without a date passes (flat playlists often have none)", () => {
    const state = subscription([{ ...created, filters: { publishedAfter: T0 } } as SubscriptionEvent, checked(T0 + 1, [])])
    const plan = planCheck(state, [
      entry("later", { publishedAt: T0 + 1 }),
      entry("at", { publishedAt: T0 }),
      entry("undated", { publishedAt: null }),
      entry("before", { publishedAt: T0 - 1 })
    ])
    expect(plan.candidates.map((e) => e.archiveKey)).toEqual(["generic later", "generic at", "generic undated"])
    expect(plan.filtered).toBe(1)
  })

  it("an entry a check saw under its former key (before entries carried their extractor's id) is not new", () => {
    const state = subscription([created, checked(T0 + 1, ["generic ent_1"])])
    const plan = planCheck(state, [entry("2"), entry("1")])
    expect(plan.fresh.map((e) => e.archiveKey)).toEqual(["generic 2"])
    expect(plan.seen).toEqual(["generic 2"])
  })

  it("an archive key is the extractor and the id, or the URL without an id", () => {
    expect(archiveKeyOf({ extractor: "Vimeo", id: "123", url: "https://vimeo.com/123" })).toBe("vimeo 123")
    expect(archiveKeyOf({ extractor: "generic", id: null, url: "https://a.example/x.mp3" })).toBe("url https://a.example/x.mp3")
  })
})
