// The list read model's document: the aggregate's state without the seen keys, folded with the aggregate's own evolve.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"
import { SubscriptionDecider } from "./SubscriptionDecider.ts"
import {
  evolveSubscriptionListView,
  listedSubscriptions,
  liveOfView,
  type SubscriptionListView,
  subscriptionOfView,
  summaryOfView
} from "./SubscriptionListView.ts"
import type { Subscription } from "./SubscriptionState.ts"
import { parseFormatId } from "../media/FormatId.ts"

const T0 = 1_767_225_600_000
const HOUR = 3_600_000
const created = (subscriptionId: string, createdAt = T0): SubscriptionEvent => ({
  _tag: "SubscriptionCreated",
  v: 1,
  subscriptionId,
  projectId: "prj_a",
  url: "https://feeds.example.com/a.xml",
  platform: "generic",
  format: parseFormatId("audio_mp3"),
  options: { audioBitrate: 128 },
  checkEveryMs: HOUR,
  filters: { titleContains: "live" },
  backfill: 1,
  createdAt
})
const history = (subscriptionId: string): ReadonlyArray<SubscriptionEvent> => [
  created(subscriptionId),
  {
    _tag: "SubscriptionChecked",
    v: 1,
    subscriptionId,
    at: T0 + 1,
    found: 3,
    new: 1,
    filtered: 0,
    queued: 1,
    seen: ["a", "b", "c"],
    nextCheckAt: T0 + HOUR
  },
  { _tag: "SubscriptionEntriesQueued", v: 1, subscriptionId, batchId: "bat_1", entries: [], at: T0 + 1 },
  {
    _tag: "SubscriptionCheckFailed",
    v: 1,
    subscriptionId,
    at: T0 + HOUR,
    error: { code: "extraction_failed", message: "503" },
    failuresInARow: 1,
    nextCheckAt: T0 + HOUR + 60_000
  },
  { _tag: "SubscriptionPaused", v: 1, subscriptionId, at: T0 + HOUR + 1 }
]

const foldView = (events: ReadonlyArray<SubscriptionEvent>) =>
  events.reduce<SubscriptionListView | null>((doc, event, i) => evolveSubscriptionListView(doc, event, i + 1), null)

describe("evolveSubscriptionListView", () => {
  it("is the aggregate's whole state (its seen keys as digests), with the sequence of the last event folded: a snapshot", () => {
    const events = history("sub_a")
    const state = foldEvents(SubscriptionDecider, events) as Subscription
    const { seen, ...summary } = state
    expect(seen.size).toBe(3)
    const view = foldView(events)
    if (view === null) throw new Error("not folded")
    expect(view).toEqual({ ...summary, seen: [...seen], lastSeq: 5 })
    expect(subscriptionOfView(view)).toEqual(state)
    expect(summaryOfView(view)).toEqual(summary)
  })

  it("a document written before it held the whole state is no snapshot, and shows nothing in flight", () => {
    const view = foldView(history("sub_a"))
    if (view === null) throw new Error("not folded")
    const { seen: _seen, plan: _plan, entries: _entries, downloaded: _d, givenUp: _g, lastGivenUp: _l, ...before } = view
    expect(subscriptionOfView(before)).toBeNull()
    expect(summaryOfView(before)).toMatchObject({ entries: [], plan: null, downloaded: 0, givenUp: 0, lastGivenUp: [], library: [] })
    expect(liveOfView(before)).toMatchObject({ subscriptionId: "sub_a", paused: true, inFlight: 0 })
  })

  it("keeps a removed subscription's document, which no list shows", () => {
    const removed = foldView([...history("sub_a"), { _tag: "SubscriptionRemoved", v: 1, subscriptionId: "sub_a", at: T0 + 2 * HOUR }])
    expect(removed).toMatchObject({ removed: true, lastSeq: 6 })
    const live = foldView([created("sub_b", T0 + 5)])
    const older = foldView([created("sub_c", T0 - 5)])
    if (removed === null || live === null || older === null) throw new Error("not folded")
    expect(listedSubscriptions([live, removed, older]).map((view) => view.subscriptionId)).toEqual(["sub_c", "sub_b"])
    expect(liveOfView(removed)).toBeNull()
  })
})
