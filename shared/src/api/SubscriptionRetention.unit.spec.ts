// Given retention rules in a subscription body, then what the request schema (the gateway's and the OpenAPI document's) accepts.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { CreateSubscriptionRequest } from "./Subscriptions.ts"

describe("CreateSubscriptionRequest: retention", () => {
  const accepts = (retention: unknown) =>
    Schema.decodeUnknownResult(CreateSubscriptionRequest)({ url: "https://example.com/feed.xml", format: "audio_mp3", retention })._tag ===
    "Success"

  it("takes keep_last 1..1000 or keep_days 1..3650, one of them", () => {
    for (const ok of [{ keep_last: 1 }, { keep_last: 1_000 }, { keep_days: 1 }, { keep_days: 3650 }])
      expect(accepts(ok), JSON.stringify(ok)).toBe(true)
    for (const bad of [{ keep_last: 0 }, { keep_last: 1_001 }, { keep_days: 3651 }, { keep_days: 1.5 }, {}, { keep: 3 }])
      expect(accepts(bad), JSON.stringify(bad)).toBe(false)
  })
})
