// Given an API error as /v1 maps it, the dashboard shows its code and message with a person's headline and Retry-After.
import { describe, expect, it } from "vitest"
import { toApiError } from "../http/ErrorMapping.ts"
import { ConcurrencyLimitExceeded, QuotaExceeded, UnsupportedPlatform } from "@mds/shared/domain/DomainErrors"
import { refusalOf } from "./ApiRefusal.ts"

describe("refusalOf", () => {
  it("two busy slots: the API's code and message, a headline, and Retry-After in seconds", () => {
    const refusal = refusalOf(toApiError(new ConcurrencyLimitExceeded({ projectId: "prj_x", limit: 2 })))
    expect(refusal).toEqual({
      status: 429,
      code: "concurrency_limit_exceeded",
      headline: "The project's download slots are all busy.",
      message: "The project already has 2 jobs queued or processing; wait for one to finish.",
      retryAfterSeconds: 5
    })
  })

  it("an unsupported platform has no Retry-After", () => {
    const refusal = refusalOf(toApiError(new UnsupportedPlatform({ url: "https://youtu.be/x", message: "YouTube is not supported." })))
    expect(refusal.headline).toBe("This site is not supported.")
    expect(refusal.message).toBe("YouTube is not supported.")
    expect(refusal.retryAfterSeconds).toBeNull()
  })

  it("a quota waits until its reset", () => {
    const resetAt = Date.UTC(2026, 10, 29)
    const failure = new QuotaExceeded({ projectId: "prj_x", quota: "jobs_per_day", limit: 10, used: 10, resetAt, retryAfterSeconds: 3600 })
    const refusal = refusalOf(toApiError(failure))
    expect(refusal.code).toBe("quota_exceeded")
    expect(refusal.headline).toBe("The project's quota is used up.")
    expect(refusal.retryAfterSeconds).toBe(3600)
  })

  it("a code without its own headline still says it was refused", () => {
    expect(refusalOf({ status: 409, code: "delivery_pending", message: "m" }).headline).toBe("The service refused this.")
  })
})
