// Specifications of the subscription aggregate: created, checked, entries found and queued, paused, resumed, failing, removed.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { archiveKeyOf } from "./ArchiveKey.ts"
import { planCheck } from "./SubscriptionCheckPlan.ts"
import {
  FIRST_RETRY_MS,
  MAX_CHECK_EVERY_MS,
  MAX_WAITING_ENTRIES,
  MIN_CHECK_EVERY_MS,
  retryDelayMs,
  SubscriptionDecider
} from "./SubscriptionDecider.ts"
import type { QueuedEntry, SubscriptionEvent } from "./SubscriptionEvent.ts"
import {
  checkPlanned,
  entriesQueued,
  foundEntry,
  HOUR,
  planChecked,
  queuedEntry,
  SUBSCRIPTION_ID,
  subscriptionChecked,
  subscriptionCreated,
  T0
} from "../../../../test/support/SubscriptionEvents.ts"
import { inFlightEntries, isCheckDue, type Subscription, subscriptionStatus } from "./SubscriptionState.ts"

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

  it("refuses a second creation, an interval under 15 minutes or over 30 days and a backfill outside 0..50", () => {
    given([created]).when(create).thenRejects("SubscriptionAlreadyExists")
    given([])
      .when({ ...create, checkEveryMs: MIN_CHECK_EVERY_MS - 1 })
      .thenRejects("InvalidSubscription")
    // An interval whose next check is no date (past JavaScript's range) would stall every reader of the subscription.
    for (const checkEveryMs of [MAX_CHECK_EVERY_MS + 1, 9_000_000_000_000_000, Number.NaN]) {
      given([])
        .when({ ...create, checkEveryMs })
        .thenRejects("InvalidSubscription")
    }
    given([])
      .when({ ...create, backfill: 51 })
      .thenRejects("InvalidSubscription")
  })

  const plan = (dueAt: number, fields: Parameters<typeof checkPlanned>[2] = {}) => {
    const { _tag, v, at, ...rest } = checkPlanned(dueAt, dueAt + 1, fields)
    const { new: fresh, ...command } = rest
    return { _tag: "PlanCheck", ...command, fresh, now: at } as const
  }
  const record = (
    dueAt: number,
    now: number,
    queued: { batchId: string; entries: ReadonlyArray<QueuedEntry> } | null = null,
    waiting: ReadonlyArray<QueuedEntry> = []
  ) => ({ _tag: "RecordCheck", subscriptionId, dueAt, now, queued, waiting }) as const

  it("plans a due check once, before anything is claimed: a second run of the check follows the first plan", () => {
    given([created])
      .when(plan(T0, { found: 3 }))
      .then([checkPlanned(T0, T0 + 1, { found: 3 })])
    given([created, checkPlanned(T0, T0 + 1)])
      .when(plan(T0, { found: 4 }))
      .thenNothing()
  })

  it("plans nothing for a due time gone, nor for a paused or removed subscription (a pause recorded while the feed was read)", () => {
    given([created, checked(T0 + 1, [])])
      .when(plan(T0))
      .thenNothing()
    given([created, paused]).when(plan(T0)).thenNothing()
    given([created, removed]).when(plan(T0)).thenNothing()
  })

  it("records the check of its plan once, the counts its plan's; the next is due one interval later", () => {
    const planned = checkPlanned(T0, T0 + 1, { found: 2, seen: ["a", "b"] })
    given([created, planned])
      .when(record(T0, T0 + 2))
      .then([planChecked(T0, T0 + 2, { found: 2 })])
    const state = stateOf([created, planned, planChecked(T0, T0 + 2, { found: 2 })])
    expect(state.plan).toBeNull()
    expect(isCheckDue(state, T0 + 1 + HOUR)).toBe(false)
    expect(isCheckDue(state, T0 + 2 + HOUR)).toBe(true)
    // Another run of the same check (by its due time), or its failure, records nothing.
    given([created, planned, planChecked(T0, T0 + 2)])
      .when(record(T0, T0 + 3))
      .thenNothing()
    given([created, planned, planChecked(T0, T0 + 2)])
      .when({ _tag: "RecordCheckFailure", subscriptionId, dueAt: T0, now: T0 + 3, error })
      .thenNothing()
  })

  it("records nothing without its plan, nor while paused: the open plan waits for the rerun after the resume", () => {
    given([created])
      .when(record(T0, T0 + 2))
      .thenNothing()
    given([created, checkPlanned(T0, T0 + 1), paused])
      .when(record(T0, T0 + 2))
      .thenNothing()
    const resumed: SubscriptionEvent = { _tag: "SubscriptionResumed", v: 1, subscriptionId, at: T0 + 9 }
    given([created, checkPlanned(T0, T0 + 1), paused, resumed])
      .when(record(T0, T0 + 10))
      .then([planChecked(T0, T0 + 10)])
  })

  it("a check whose plan is recorded does not fail: its rerun follows the plan", () => {
    given([created, checkPlanned(T0, T0 + 1)])
      .when({ _tag: "RecordCheckFailure", subscriptionId, dueAt: T0, now: T0 + 2, error })
      .thenNothing()
  })

  it("records the entries a check queued as one batch (v2): each is the subscription's, in flight there, until it is done", () => {
    const entries = [queuedEntry("c")]
    const planned = checkPlanned(T0, T0 + 1, { found: 2, new: 1, candidates: entries })
    given([created, planned])
      .when(record(T0, T0 + 2, { batchId: "bat_1", entries }))
      .then([planChecked(T0, T0 + 2, { found: 2, new: 1, queued: 1 }), entriesQueued("bat_1", entries, T0 + 2)])
    const state = stateOf([created, planned, planChecked(T0, T0 + 2), entriesQueued("bat_1", entries, T0 + 2)])
    expect(inFlightEntries(state).map((e) => [e.archiveKey, e.batchId])).toEqual([["generic c", "bat_1"]])
  })

  it("new entries past the quota's limit wait, with the reason; a v1 batch's entries are done once queued", () => {
    const hold = { code: "quota_exceeded", message: "jobs per day" }
    const planned = checkPlanned(T0, T0 + 1, { candidates: [queuedEntry("b"), queuedEntry("a")], limit: 1, hold })
    const state = stateOf([
      created,
      planned,
      planChecked(T0, T0 + 2, { queued: 1, waiting: [queuedEntry("a")] }),
      entriesQueued("bat_1", [queuedEntry("b")], T0 + 2)
    ])
    expect(state.entries.map((e) => [e.archiveKey, e.batchId, e.waitingFor])).toEqual([
      ["generic a", null, hold],
      ["generic b", "bat_1", null]
    ])
    const legacy = stateOf([created, checked(T0 + 1, ["generic b"]), { ...entriesQueued("bat_0", [queuedEntry("b")], T0 + 1), v: 1 }])
    expect(legacy.entries).toEqual([])
  })

  it(`keeps at most ${MAX_WAITING_ENTRIES} entries waiting: the oldest past that are given up, said with the check`, () => {
    const waiting = Array.from({ length: MAX_WAITING_ENTRIES + 2 }, (_, i) => queuedEntry(String(i)))
    const hold = { code: "quota_exceeded", message: "held" }
    const planned = checkPlanned(T0, T0 + 1, { candidates: waiting, limit: 0, hold })
    const decided = SubscriptionDecider.decide(record(T0, T0 + 2, null, waiting), stateOf([created, planned]))
    if (Result.isFailure(decided)) throw new Error("refused")
    const [, settled] = decided.success
    expect(settled).toMatchObject({ _tag: "SubscriptionEntriesSettled" })
    if (settled?._tag !== "SubscriptionEntriesSettled") throw new Error("no settlement")
    expect(settled.outcomes.map((o) => [o.archiveKey, o.result, o.reason?.code])).toEqual([
      ["generic 0", "given_up", "too_many_waiting"],
      ["generic 1", "given_up", "too_many_waiting"]
    ])
    const state = stateOf([created, planned, ...decided.success])
    expect(state.entries).toHaveLength(MAX_WAITING_ENTRIES)
    expect(state.givenUp).toBe(2)
  })

  it("settles only entries in flight in the batch an outcome names; a download and a give-up are done, a retry waits", () => {
    const entries = [queuedEntry("a"), queuedEntry("b"), queuedEntry("c")]
    const inFlight = [
      created,
      checkPlanned(T0, T0 + 1, { candidates: entries }),
      planChecked(T0, T0 + 2),
      entriesQueued("bat_1", entries, T0 + 2)
    ]
    const outcome = (id: string, result: "downloaded" | "given_up" | "waiting", batchId = "bat_1") => ({
      archiveKey: `generic ${id}`,
      batchId,
      result,
      failed: result !== "downloaded",
      reason: result === "downloaded" ? null : { code: "download_failed", message: "503" },
      jobId: `job_${id}`
    })
    const settled = {
      _tag: "SubscriptionEntriesSettled",
      v: 1,
      subscriptionId,
      outcomes: [outcome("a", "downloaded"), outcome("b", "given_up"), outcome("c", "waiting")],
      at: T0 + 9
    } as const
    given(inFlight)
      .when({
        _tag: "SettleEntries",
        subscriptionId,
        now: T0 + 9,
        outcomes: [outcome("a", "downloaded"), outcome("b", "given_up"), outcome("c", "waiting"), outcome("a", "downloaded", "bat_other")]
      })
      .then([settled])
    const state = stateOf([...inFlight, settled])
    expect([state.downloaded, state.givenUp]).toEqual([1, 1])
    expect(state.lastGivenUp.map((e) => [e.entryId, e.reason.code])).toEqual([["ent_b", "download_failed"]])
    expect(state.entries.map((e) => [e.archiveKey, e.batchId, e.failures])).toEqual([["generic c", null, 1]])
    // Settled again (a repeated round): nothing.
    given([...inFlight, settled])
      .when({ _tag: "SettleEntries", subscriptionId, now: T0 + 10, outcomes: [outcome("a", "downloaded")] })
      .thenNothing()
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
    given([created, checked(T0 + 1, []), checkPlanned(T0 + 1 + HOUR, T0 + 2 + HOUR, { found: 1 })])
      .when(record(T0 + 1 + HOUR, T0 + 2 + HOUR))
      .then([planChecked(T0 + 1 + HOUR, T0 + 2 + HOUR, { found: 1 })])
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
    given([created, checkPlanned(T0, T0 + 1), removed])
      .when(record(T0, T0 + 7))
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
