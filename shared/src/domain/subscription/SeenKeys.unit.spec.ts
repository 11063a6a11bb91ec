// Specifications of a subscription's seen keys: digests, at most SEEN_LIMIT, the oldest let go first but never one the
// feed lists now; and what reading a subscription costs after 100,000 entries against 10.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { listedAtRisk, SEEN_LIMIT, seenDigest, withSeen } from "./SeenKeys.ts"
import { planCheck } from "./SubscriptionCheckPlan.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"
import { subscriptionOfView, viewOfSubscription } from "./SubscriptionListView.ts"
import type { Subscription } from "./SubscriptionState.ts"
import {
  checkPlanned,
  foundEntry,
  planChecked,
  subscriptionChecked,
  subscriptionCreated,
  T0
} from "../../../../test/support/SubscriptionEvents.ts"

const keys = (from: number, count: number) => Array.from({ length: count }, (_, i) => `generic ${from + i}`)

describe("seen keys", () => {
  it("are short digests, one per key, that do not meet among many keys", () => {
    const digests = new Set(keys(0, 20_000).map(seenDigest))
    expect(digests.size).toBe(20_000)
    expect(seenDigest(`url https://a.example/${"x".repeat(2_000)}`).length).toBeLessThanOrEqual(11)
  })

  it(`keep at most ${SEEN_LIMIT}, letting the oldest go first`, () => {
    const seen = withSeen(withSeen(new Set(), keys(0, SEEN_LIMIT)), keys(SEEN_LIMIT, 10))
    expect(seen.size).toBe(SEEN_LIMIT)
    expect(seen.has(seenDigest("generic 0"))).toBe(false)
    expect(seen.has(seenDigest("generic 10"))).toBe(true)
  })

  it("never let go a key the feed still lists: it is refreshed (moved to the newest end) instead", () => {
    const full = withSeen(new Set(), keys(0, SEEN_LIMIT))
    const listed = new Set([seenDigest("generic 0"), seenDigest("generic 2")])
    const atRisk = listedAtRisk(full, 3, listed)
    expect(atRisk).toEqual([seenDigest("generic 0"), seenDigest("generic 2")])
    const next = withSeen(full, keys(SEEN_LIMIT, 3), atRisk)
    expect(next.size).toBe(SEEN_LIMIT)
    expect([next.has(seenDigest("generic 0")), next.has(seenDigest("generic 2"))]).toEqual([true, true])
    expect([next.has(seenDigest("generic 1")), next.has(seenDigest("generic 3")), next.has(seenDigest("generic 4"))]).toEqual([
      false,
      false,
      false
    ])
  })

  it("a check refreshes what its feed still lists, so an old entry listed all along is never found new", () => {
    let events: Array<SubscriptionEvent> = [subscriptionCreated(), subscriptionChecked(T0, { seen: ["generic old"] })]
    const state = () => foldEvents(SubscriptionDecider, events) as Subscription
    for (let check = 0; check < 3; check++) {
      const fresh = keys(check * 1_000, 1_000).map((key) => foundEntry(key.slice(8)))
      const plan = planCheck(state(), [...fresh, foundEntry("old")])
      const dueAt = T0 + (check + 1) * 10
      events = [...events, checkPlanned(dueAt, dueAt, { seen: plan.seen, refreshed: plan.refreshed }), planChecked(dueAt, dueAt + 1)]
      events = [...events, { _tag: "SubscriptionCheckDue", v: 1, subscriptionId: "sub_a", dueAt: dueAt + 10 }]
    }
    expect(state().seen.size).toBe(SEEN_LIMIT)
    expect(planCheck(state(), [foundEntry("old")]).fresh).toEqual([])
  })

  it("reading a subscription costs the same after 100,000 entries as after 10,000: its document stops growing at SEEN_LIMIT keys", () => {
    const documentAfter = (entries: number) => {
      const events: Array<SubscriptionEvent> = [subscriptionCreated()]
      const perCheck = Math.min(entries, 1_000)
      for (let check = 0; check * perCheck < entries; check++) {
        const dueAt = T0 + check * 10
        events.push(checkPlanned(dueAt, dueAt, { seen: keys(check * perCheck, perCheck) }), planChecked(dueAt, dueAt + 1))
        events.push({ _tag: "SubscriptionCheckDue", v: 1, subscriptionId: "sub_a", dueAt: dueAt + 10 })
      }
      return JSON.stringify(viewOfSubscription(foldEvents(SubscriptionDecider, events) as Subscription, events.length))
    }
    // A read is the document and the events after it (JetStream: one get, and a direct get per event since the last
    // fold); the document is what could grow, and it stops growing at SEEN_LIMIT keys.
    const small = documentAfter(10)
    const medium = documentAfter(10_000)
    const large = documentAfter(100_000)
    expect(large.length).toBeLessThan(SEEN_LIMIT * 14 + 2_000)
    expect(Math.abs(large.length - medium.length)).toBeLessThan(medium.length / 20)
    const readTime = (json: string) => {
      const started = performance.now()
      for (let i = 0; i < 20; i++) subscriptionOfView(JSON.parse(json))
      return (performance.now() - started) / 20
    }
    const figure = [small, medium, large].map((json) => `${json.length} bytes, read ${readTime(json).toFixed(2)} ms`)
    console.info(`subscription document after 10, 10,000 and 100,000 entries: ${figure.join("; ")}`)
  })
})
