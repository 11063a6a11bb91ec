// Given an extraction's result, then the platform-health outcome it counts as.
import { describe, expect, it } from "vitest"
import { platformOutcomeOf } from "./PlatformOutcomeOf.ts"

describe("platformOutcomeOf", () => {
  it("success is ok; rate limits and bot checks are blocks, whatever code they came with", () => {
    expect(platformOutcomeOf(null)).toBe("ok")
    expect(platformOutcomeOf({ code: "download_failed", message: "HTTP Error 429: Too Many Requests" })).toBe("blocked")
    expect(platformOutcomeOf({ code: "media_unavailable", message: "Sign in to confirm you’re not a bot" })).toBe("blocked")
    expect(platformOutcomeOf({ code: "extraction_failed", message: "rate-limit reached, try again later" })).toBe("blocked")
  })

  it("platform failures count as failed; problems of one item are not counted", () => {
    expect(platformOutcomeOf({ code: "extraction_failed", message: "Unable to extract title" })).toBe("failed")
    expect(platformOutcomeOf({ code: "download_failed", message: "HTTP Error 500" })).toBe("failed")
    expect(platformOutcomeOf({ code: "media_unavailable", message: "This video is private" })).toBeNull()
    expect(platformOutcomeOf({ code: "format_unavailable", message: "Requested format is not available" })).toBeNull()
    expect(platformOutcomeOf({ code: "url_not_allowed", message: "private address" })).toBeNull()
  })
})
