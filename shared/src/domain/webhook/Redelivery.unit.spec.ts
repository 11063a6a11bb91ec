// Specifications of asking for a webhook delivery again: only one that ended, of the asking project.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { decideRedelivery, latestAttempt, RedeliveryDecider, redeliveryMsgId, redeliveryOf } from "./Redelivery.ts"
import { deliveryAttemptV1 } from "../../../../test/support/WebhookAttempts.ts"
import type { WebhookDeliveryAttempted, WebhookDeliveryAttemptedV1, WebhookRedeliveryRequested } from "./WebhookEvent.ts"

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
const ask = (latest: WebhookDeliveryAttempted | null, deliveryId = "dlv_1", projectId = "prj_a") =>
  ({ _tag: "RequestRedelivery", projectId, deliveryId, now: 1_000, latest }) as const
const given = DeciderSpecification.for(RedeliveryDecider)

describe("decideRedelivery", () => {
  const gaveUp = [attempt({}), attempt({ attempt: 2, outcome: "failed", at: 300, nextAttemptAt: null })]
  const requested: WebhookRedeliveryRequested = {
    _tag: "WebhookRedeliveryRequested",
    v: 1,
    projectId: "prj_a",
    deliveryId: "dlv_1",
    jobId: "job_1",
    eventType: "job.failed",
    afterAttemptAt: 300,
    at: 1_000
  }

  it("given a delivery that was given up, when asked, then a redelivery of the same event is requested", () =>
    given([])
      .when(ask(latestAttempt(gaveUp, "dlv_1")))
      .then([requested]))
  it("given a delivered one, it may be sent again too", () =>
    expect(
      Result.isSuccess(decideRedelivery(ask(attempt({ outcome: "delivered", statusCode: 204, nextAttemptAt: null })), new Map()))
    ).toBe(true))
  it("given one still retrying, it is refused with the next attempt's time", () => {
    const failure = given([])
      .when(ask(latestAttempt([attempt({})], "dlv_1")))
      .thenRejects("WebhookDeliveryPending")
    expect(failure).toMatchObject({ nextAttemptAt: 200 })
  })
  it("given an unknown delivery, or another project's, it is not found", () => {
    given([])
      .when(ask(latestAttempt(gaveUp, "dlv_9"), "dlv_9"))
      .thenRejects("WebhookDeliveryNotFound")
    given([])
      .when(ask(latestAttempt(gaveUp, "dlv_1"), "dlv_1", "prj_b"))
      .thenRejects("WebhookDeliveryNotFound")
  })
  it("asking twice after the same attempt is one request (the same message id, and nothing more to append)", () => {
    const first = Result.getOrThrow(redeliveryOf(ask(latestAttempt(gaveUp, "dlv_1"))))
    const second = Result.getOrThrow(redeliveryOf({ ...ask(latestAttempt(gaveUp, "dlv_1")), now: 5_000 }))
    expect(redeliveryMsgId(first)).toBe(redeliveryMsgId(second))
    given([requested])
      .when({ ...ask(latestAttempt(gaveUp, "dlv_1")), now: 5_000 })
      .thenNothing()
  })
  it("asked again after a later attempt (the redelivery ran and ended), it is a new request", () => {
    const again = [...gaveUp, attempt({ attempt: 1, outcome: "failed", at: 2_000, nextAttemptAt: null })]
    given([requested])
      .when(ask(latestAttempt(again, "dlv_1")))
      .then([{ ...requested, afterAttemptAt: 2_000 }])
  })
})
