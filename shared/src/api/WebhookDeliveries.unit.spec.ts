// The delivery log's attempts as /v1 answers them: version-1 attempts (job events only) still decode and read as before.
import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { WebhookDeliveryAttempted } from "../domain/webhook/WebhookEvent.ts"
import { toWebhookDelivery } from "./WebhookDeliveries.ts"

const decode = Schema.decodeUnknownSync(Schema.fromJsonString(WebhookDeliveryAttempted))
const common = {
  _tag: "WebhookDeliveryAttempted",
  deliveryId: "dlv_1",
  projectId: "prj_a",
  webhookId: "whk_1",
  url: "https://example.com/hook",
  attempt: 1,
  outcome: "delivered",
  statusCode: 204,
  error: null,
  durationMs: 12,
  at: 0,
  nextAttemptAt: null
}

describe("WebhookDeliveryAttempted", () => {
  it("decodes a version-1 attempt as stored before subscriptions, about its job", () => {
    const stored = JSON.stringify({ ...common, v: 1, eventType: "job.completed", jobId: "job_1" })
    expect(toWebhookDelivery(decode(stored))).toMatchObject({ event: "job.completed", job_id: "job_1", subscription_id: null })
  })

  it("version 1 knew only job events and always a job", () => {
    expect(() => decode(JSON.stringify({ ...common, v: 1, eventType: "subscription.failing", jobId: "job_1" }))).toThrow()
    expect(() => decode(JSON.stringify({ ...common, v: 1, eventType: "job.failed", jobId: null }))).toThrow()
  })

  it("decodes a version-2 attempt about a subscription", () => {
    const stored = JSON.stringify({
      ...common,
      v: 2,
      eventType: "subscription.entries_queued",
      jobId: null,
      subscriptionId: "sub_1"
    })
    expect(toWebhookDelivery(decode(stored))).toMatchObject({
      event: "subscription.entries_queued",
      job_id: null,
      subscription_id: "sub_1"
    })
  })
})
