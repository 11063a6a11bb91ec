// Specifications of asking for a webhook delivery again: only one that ended, of the asking project.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { decideRedelivery, latestAttempt, redeliveryMsgId } from "./Redelivery.ts"
import { deliveryAttemptV1 } from "../../../../test/support/WebhookAttempts.ts"
import type { WebhookDeliveryAttemptedV1 } from "./WebhookEvent.ts"

const attempt = (fields: Partial<WebhookDeliveryAttemptedV1>) =>
  deliveryAttemptV1({
    deliveryId: "dlv_1",
    projectId: "prj_a",
    jobId: "job_1",
    statusCode: 500,
    error: "HTTP 500",
    at: 100,
    nextAttemptAt: 200,
    ...fields
  })
const ask = (deliveryId = "dlv_1", projectId = "prj_a") => ({ _tag: "RequestRedelivery", projectId, deliveryId, now: 1_000 }) as const

describe("decideRedelivery", () => {
  const gaveUp = [attempt({}), attempt({ attempt: 2, outcome: "failed", at: 300, nextAttemptAt: null })]

  it("given a delivery that was given up, when asked, then a redelivery of the same event is requested", () => {
    const decided = decideRedelivery(ask(), latestAttempt(gaveUp, "dlv_1"))
    expect(Result.getOrThrow(decided)).toEqual({
      _tag: "WebhookRedeliveryRequested",
      v: 1,
      projectId: "prj_a",
      deliveryId: "dlv_1",
      jobId: "job_1",
      eventType: "job.failed",
      afterAttemptAt: 300,
      at: 1_000
    })
  })
  it("given a delivered one, it may be sent again too", () =>
    expect(Result.isSuccess(decideRedelivery(ask(), attempt({ outcome: "delivered", statusCode: 204, nextAttemptAt: null })))).toBe(true))
  it("given one still retrying, it is refused with the next attempt's time", () => {
    const decided = decideRedelivery(ask(), latestAttempt([attempt({})], "dlv_1"))
    expect(Result.isFailure(decided) && decided.failure).toMatchObject({ _tag: "WebhookDeliveryPending", nextAttemptAt: 200 })
  })
  it("given an unknown delivery, or another project's, it is not found", () => {
    expect(Result.isFailure(decideRedelivery(ask("dlv_9"), latestAttempt(gaveUp, "dlv_9")))).toBe(true)
    const other = decideRedelivery(ask("dlv_1", "prj_b"), latestAttempt(gaveUp, "dlv_1"))
    expect(Result.isFailure(other) && other.failure._tag).toBe("WebhookDeliveryNotFound")
  })
  it("asking twice after the same attempt is one request (the same message id)", () => {
    const first = Result.getOrThrow(decideRedelivery(ask(), latestAttempt(gaveUp, "dlv_1")))
    const second = Result.getOrThrow(decideRedelivery({ ...ask(), now: 5_000 }, latestAttempt(gaveUp, "dlv_1")))
    expect(redeliveryMsgId(first)).toBe(redeliveryMsgId(second))
  })
})
