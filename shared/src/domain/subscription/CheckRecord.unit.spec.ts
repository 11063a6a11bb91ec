// Specifications of what a check records from its plan: the waiting entries it queues again, the candidates it owns, the
// quota's limit; every run of the check computes the same batch from the same plan.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { recordOfPlan } from "./CheckRecord.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"
import type { Subscription } from "./SubscriptionState.ts"
import {
  checkPlanned,
  entriesQueued,
  planChecked,
  queuedEntry,
  subscriptionCreated,
  T0
} from "../../../../test/support/SubscriptionEvents.ts"

const stateOf = (events: ReadonlyArray<SubscriptionEvent>) => foldEvents(SubscriptionDecider, events) as Subscription
const keys = (entries: ReadonlyArray<{ readonly archiveKey: string }>) => entries.map((entry) => entry.archiveKey)

describe("recordOfPlan", () => {
  const hold = { code: "quota_exceeded", message: "held" }
  /** A subscription whose first check left "w" waiting (held by the quota), with the plan of its second check. */
  const withWaiting = (plan: Partial<Parameters<typeof checkPlanned>[2]>) =>
    stateOf([
      subscriptionCreated({ backfill: 1 }),
      checkPlanned(T0, T0 + 1, { candidates: [queuedEntry("w")], limit: 0, hold }),
      planChecked(T0, T0 + 2, { waiting: [queuedEntry("w")] }),
      { _tag: "SubscriptionCheckDue", v: 1, subscriptionId: "sub_a", dueAt: T0 + 10 },
      checkPlanned(T0 + 10, T0 + 11, { requeue: ["generic w"], ...plan })
    ])

  it("queues the waiting entries again first, then the candidates the check owns; a candidate another claim owns is left out", () => {
    const state = withWaiting({ candidates: [queuedEntry("b"), queuedEntry("a")] })
    if (state.plan === null) throw new Error("no plan")
    const record = recordOfPlan(state.plan, state.entries, new Set(["generic b"]))
    expect(keys(record.queued)).toEqual(["generic w", "generic b"])
    expect(record.waiting).toEqual([])
  })

  it("past the plan's limit, the owned candidates wait; with the quota used up nothing is queued", () => {
    const state = withWaiting({ candidates: [queuedEntry("b"), queuedEntry("a")], limit: 2, hold })
    if (state.plan === null) throw new Error("no plan")
    const record = recordOfPlan(state.plan, state.entries, new Set(["generic b", "generic a"]))
    expect(keys(record.queued)).toEqual(["generic w", "generic b"])
    expect(keys(record.waiting)).toEqual(["generic a"])
    const none = recordOfPlan({ ...state.plan, limit: 0 }, state.entries, new Set(["generic b", "generic a"]))
    expect([none.queued, keys(none.waiting)]).toEqual([[], ["generic b", "generic a"]])
  })

  it("a waiting entry settled or queued meanwhile is not queued again by the plan", () => {
    const state = withWaiting({})
    if (state.plan === null) throw new Error("no plan")
    const queued = stateOf([
      subscriptionCreated({ backfill: 1 }),
      checkPlanned(T0, T0 + 1, { candidates: [queuedEntry("w")] }),
      planChecked(T0, T0 + 2),
      entriesQueued("bat_1", [queuedEntry("w")], T0 + 2)
    ])
    expect(recordOfPlan(state.plan, queued.entries, new Set()).queued).toEqual([])
  })
})
