// Specifications of what a check records: its plan, or the batch an earlier run of the same check created.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { queuedOfBatch, recordOfBatch, recordOfPlan } from "./CheckRecord.ts"
import { type FoundEntry, planCheck } from "./SubscriptionCheckPlan.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"
import { foundEntry, subscriptionChecked, subscriptionCreated, T0 } from "../../../../test/support/SubscriptionEvents.ts"
import type { Subscription } from "./SubscriptionState.ts"

const created = (backfill: number): SubscriptionEvent => subscriptionCreated({ backfill, filters: { titleContains: "episode" } })
const checked = (seen: ReadonlyArray<string>): SubscriptionEvent => subscriptionChecked(T0, { found: seen.length, seen })
const subscription = (events: ReadonlyArray<SubscriptionEvent>) => foldEvents(SubscriptionDecider, events) as Subscription

const entry = (id: string, title = `Episode ${id}`): FoundEntry => foundEntry(id, { title })
const batchEntry = (id: string) => ({ entryId: `ent_${id}`, url: `https://media.example.com/${id}.mp3`, title: `Episode ${id}` })

describe("recordOfPlan", () => {
  it("a check that made its own batch records its plan's counts and seen keys", () => {
    const plan = planCheck(subscription([created(0), checked(["generic 1"])]), [entry("3"), entry("2", "Bonus"), entry("1")])
    expect(recordOfPlan(plan)).toEqual({ found: 3, fresh: 2, filtered: 1, seen: ["generic 3", "generic 2"] })
  })
})

describe("queuedOfBatch", () => {
  it("keys each batch entry as the feed lists it now, and one the feed no longer lists by its former key", () => {
    expect(queuedOfBatch([batchEntry("3"), batchEntry("gone")], [entry("4"), entry("3")], "generic")).toEqual([
      { archiveKey: "generic 3", entryId: "ent_3", url: "https://media.example.com/3.mp3", title: "Episode 3" },
      { archiveKey: "generic ent_gone", entryId: "ent_gone", url: "https://media.example.com/gone.mp3", title: "Episode gone" }
    ])
  })
})

describe("recordOfBatch", () => {
  it("an entry that appeared after the earlier run made the batch is left to the next check: neither new nor seen", () => {
    const state = subscription([created(0), checked(["generic 1"])])
    const found = [entry("4"), entry("3"), entry("2"), entry("1")]
    const plan = planCheck(state, found)
    const queued = queuedOfBatch([batchEntry("3"), batchEntry("2")], found, "generic")
    const record = recordOfBatch(plan, queued)
    expect(record).toEqual({ found: 4, fresh: 2, filtered: 0, seen: ["generic 3", "generic 2"] })

    // Recorded, the next check's plan finds it new and a candidate.
    const next = planCheck(subscription([created(0), checked(["generic 1"]), checked(record.seen)]), found)
    expect(next.candidates.map((e) => e.archiveKey)).toEqual(["generic 4"])
  })

  it("a new entry the filters let go stays seen and counted: only candidates outside the batch wait", () => {
    const state = subscription([created(0), checked(["generic 1"])])
    const found = [entry("4"), entry("bonus", "Bonus"), entry("3"), entry("1")]
    const record = recordOfBatch(planCheck(state, found), queuedOfBatch([batchEntry("3")], found, "generic"))
    expect(record).toEqual({ found: 4, fresh: 2, filtered: 1, seen: ["generic bonus", "generic 3"] })
  })

  it("the batch's entries are seen even when the feed no longer lists one, and later checks read its former key as seen", () => {
    const state = subscription([created(0), checked(["generic 1"])])
    const found = [entry("3"), entry("1")]
    const record = recordOfBatch(planCheck(state, found), queuedOfBatch([batchEntry("3"), batchEntry("2")], found, "generic"))
    expect(record).toEqual({ found: 2, fresh: 2, filtered: 0, seen: ["generic 3", "generic ent_2"] })

    const back = planCheck(subscription([created(0), checked(["generic 1"]), checked(record.seen)]), [entry("3"), entry("2"), entry("1")])
    expect(back.fresh).toEqual([])
  })

  it("a first check whose backfill window moved since the earlier run records the batch's entries and leaves the newer one", () => {
    const found = [entry("4"), entry("3"), entry("2"), entry("1")]
    const plan = planCheck(subscription([created(2)]), found)
    expect(plan.candidates.map((e) => e.archiveKey)).toEqual(["generic 4", "generic 3"])
    const record = recordOfBatch(plan, queuedOfBatch([batchEntry("3"), batchEntry("2")], found, "generic"))
    expect(record).toEqual({ found: 4, fresh: 2, filtered: 0, seen: ["generic 3", "generic 2", "generic 1"] })
  })
})
