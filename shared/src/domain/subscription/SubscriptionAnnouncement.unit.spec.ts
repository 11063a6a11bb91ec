// Given a subscription's events, then which of them its webhooks announce, and what names each.
import { describe, expect, it } from "vitest"
import { subscriptionChecked, subscriptionCreated, SUBSCRIPTION_ID, T0 } from "../../../../test/support/SubscriptionEvents.ts"
import { announcementOf } from "./SubscriptionAnnouncement.ts"
import type { SubscriptionEvent } from "./SubscriptionEvent.ts"

const entry = { archiveKey: "generic e1", entryId: "e1", url: "https://example.com/e1", title: "One" }
const error = { code: "media_unavailable", message: "gone" }

describe("announcementOf", () => {
  it("announces the entries a check queued, named by the check's batch", () => {
    const queued: SubscriptionEvent = {
      _tag: "SubscriptionEntriesQueued",
      v: 1,
      subscriptionId: SUBSCRIPTION_ID,
      batchId: "bat_1",
      entries: [entry],
      at: T0
    }
    expect(announcementOf(queued)).toEqual({
      type: "subscription.entries_queued",
      seed: "bat_1",
      at: T0,
      batchId: "bat_1",
      entries: [entry]
    })
  })

  it("announces a subscription starting to fail, each time named by its time", () => {
    const failing = (at: number): SubscriptionEvent => ({ _tag: "SubscriptionFailing", v: 1, subscriptionId: SUBSCRIPTION_ID, error, at })
    expect(announcementOf(failing(T0))).toEqual({ type: "subscription.failing", seed: `failing@${T0}`, at: T0, error })
    expect(announcementOf(failing(T0 + 1))?.seed).not.toBe(announcementOf(failing(T0))?.seed)
  })

  it("announces nothing else", () => {
    expect(announcementOf(subscriptionCreated())).toBeNull()
    expect(announcementOf(subscriptionChecked(T0))).toBeNull()
    expect(announcementOf({ _tag: "SubscriptionPaused", v: 1, subscriptionId: SUBSCRIPTION_ID, at: T0 })).toBeNull()
  })
})
