// Given a subscription's creation with a retention rule, then what the decider takes: a rule only with a destination,
// kept on the subscription; its library takes each delivered entry once and lets a removed one go once.
import { describe, expect, it } from "vitest"
import { subscriptionCreated } from "../../../../test/support/SubscriptionEvents.ts"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"

const given = DeciderSpecification.for(SubscriptionDecider)
const { _tag: _created, v: _v, createdAt, ...fields } = subscriptionCreated()
const delivery = { destinationId: "dst_a", pathTemplate: "{uploader}/{title}.{ext}", sidecars: [] }
const create = { _tag: "CreateSubscription", ...fields, now: createdAt } as const

describe("SubscriptionDecider: retention", () => {
  it("keeps a rule given with a destination", () => {
    const withRule = { ...create, options: { delivery }, retention: { keepLast: 5 } } as const
    const { _tag, now, ...definition } = withRule
    const created: SubscriptionEvent = { _tag: "SubscriptionCreated", v: 1, ...definition, createdAt: now }
    given([]).when(withRule).then([created])
    expect(foldEvents(SubscriptionDecider, [created])?.retention).toEqual({ keepLast: 5 })
  })

  it("refuses a rule without a destination: it would have no delivered files of its own to remove", () =>
    given([])
      .when({ ...create, retention: { keepDays: 7 } })
      .thenRejects("InvalidSubscription"))
})

describe("SubscriptionDecider: a retained subscription's library", () => {
  const { _tag, now, ...definition } = { ...create, options: { delivery }, retention: { keepLast: 1 } } as const
  const retained: SubscriptionEvent = { _tag: "SubscriptionCreated", v: 1, ...definition, createdAt: now }
  const { subscriptionId } = definition
  const entry = (jobId: string, deliveredAt: number) => ({
    jobId,
    destinationId: "dst_a",
    paths: [`Show/${jobId}.nfo`, `Show/${jobId}.mp4`],
    deliveredAt
  })
  const delivered = (...entries: ReadonlyArray<ReturnType<typeof entry>>): SubscriptionEvent => ({
    _tag: "SubscriptionEntriesDelivered",
    v: 1,
    subscriptionId,
    entries,
    at: 10
  })

  it("takes the delivered entries it does not hold yet, and holds them after the job's records are gone", () => {
    given([retained, delivered(entry("job_a", 5))])
      .when({ _tag: "RecordDeliveredEntries", subscriptionId, now: 10, entries: [entry("job_a", 5), entry("job_b", 8)] })
      .then([delivered(entry("job_b", 8))])
    expect(foldEvents(SubscriptionDecider, [retained, delivered(entry("job_a", 5)), delivered(entry("job_b", 8))])?.library).toEqual([
      entry("job_a", 5),
      entry("job_b", 8)
    ])
  })

  it("records nothing for entries it holds already, nor for a subscription without a rule", () => {
    given([retained, delivered(entry("job_a", 5))])
      .when({ _tag: "RecordDeliveredEntries", subscriptionId, now: 10, entries: [entry("job_a", 5)] })
      .then([])
    given([subscriptionCreated({ subscriptionId })])
      .when({ _tag: "RecordDeliveredEntries", subscriptionId, now: 10, entries: [entry("job_a", 5)] })
      .then([])
  })

  it("lets a removed entry go once: a removal recorded again, or of an entry it never held, records nothing", () => {
    const removed: SubscriptionEvent = { _tag: "SubscriptionEntriesRemoved", v: 1, subscriptionId, jobIds: ["job_a"], at: 20 }
    given([retained, delivered(entry("job_a", 5), entry("job_b", 8))])
      .when({ _tag: "RecordRemovedEntries", subscriptionId, now: 20, jobIds: ["job_a", "job_z"] })
      .then([removed])
    given([retained, delivered(entry("job_a", 5), entry("job_b", 8)), removed])
      .when({ _tag: "RecordRemovedEntries", subscriptionId, now: 30, jobIds: ["job_a"] })
      .then([])
    expect(foldEvents(SubscriptionDecider, [retained, delivered(entry("job_a", 5), entry("job_b", 8)), removed])?.library).toEqual([
      entry("job_b", 8)
    ])
  })

  it("a removed subscription records nothing more in its library", () =>
    given([retained, { _tag: "SubscriptionRemoved", v: 1, subscriptionId, at: 15 }])
      .when({ _tag: "RecordDeliveredEntries", subscriptionId, now: 20, entries: [entry("job_a", 5)] })
      .then([]))
})
