// POST /v1/webhooks/deliveries/{deliveryId}/redeliver: the dashboard's redelivery command over the API, judged from the
// key's project's delivery log, with its refusals in the /v1 envelope and every answer as the OpenAPI document says.
import {
  WebhookDeliveryAttempted,
  type WebhookDeliveryAttemptedV2,
  WebhookRedeliveryRequested
} from "@mds/shared/domain/webhook/WebhookEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { webhookDeliverySubject, webhookRedeliverSubject } from "@mds/shared/nats/Subjects"
import { Effect } from "effect"
import type { LightMyRequestResponse } from "fastify"
import { beforeAll, describe, expect, it } from "vitest"
import { type OpenApiConformance, openApiConformance } from "../../../test/support/OpenApiConformance.ts"
import { deliveryAttempt } from "../../../test/support/WebhookAttempts.ts"
import { useHarness } from "./GatewayHarness.ts"

const file = useHarness()
const PATH = "/v1/webhooks/deliveries/{deliveryId}/redeliver"
const GAVE_UP = "dlv_0123456789abcdef01234567"
const RETRYING = "dlv_89abcdef0123456789abcdef"
const SUBSCRIPTION = "dlv_fedcba9876543210fedcba98"
const JOB = "job_aaaaaaaaaaaaaaaaaaaaaaaa"

let conformance: OpenApiConformance
beforeAll(async () => {
  conformance = openApiConformance((await file.h.gateway.app.inject({ method: "GET", url: "/v1/openapi.json" })).json())
})

const attempt = (projectId: string, fields: Partial<WebhookDeliveryAttemptedV2>) =>
  deliveryAttempt({ deliveryId: GAVE_UP, projectId, jobId: JOB, at: Date.now() - 60_000, nextAttemptAt: Date.now() - 50_000, ...fields })

/** A project with a key and a log: a job delivery that gave up, one still retrying, and a subscription's. */
const projectWithLog = async () => {
  const { key, projectId } = await file.h.provisionKey()
  const now = Date.now()
  const log = [
    attempt(projectId, { at: now - 30_000 }),
    attempt(projectId, { attempt: 2, outcome: "failed", statusCode: 500, error: "HTTP 500", at: now - 20_000, nextAttemptAt: null }),
    attempt(projectId, { deliveryId: RETRYING, eventType: "job.completed", at: now - 10_000, nextAttemptAt: now + 60_000 }),
    attempt(projectId, {
      deliveryId: SUBSCRIPTION,
      eventType: "subscription.failing",
      jobId: null,
      subscriptionId: "sub_aaaaaaaaaaaaaaaaaaaaaaaa",
      outcome: "failed",
      at: now - 5_000,
      nextAttemptAt: null
    })
  ]
  await file.h.gateway.run(
    Effect.flatMap(EventStore, (store) =>
      Effect.forEach(log, (event, i) =>
        store.append(WebhookDeliveryAttempted, webhookDeliverySubject(projectId), event, { msgId: `${projectId}:log-${i}` })
      )
    )
  )
  return { key, projectId }
}

const redeliver = (key: string, deliveryId: string) =>
  file.h.gateway.app.inject({ method: "POST", url: `/v1/webhooks/deliveries/${deliveryId}/redeliver`, headers: { "x-api-key": key } })

const requestsOf = (projectId: string) =>
  file.h.gateway.run(
    Effect.flatMap(EventStore, (store) => store.readSubject(WebhookRedeliveryRequested, webhookRedeliverSubject(projectId)))
  )

/** The answer has the status, conforms to the document, and a refusal carries its code and the request's id. */
const expectAnswer = (response: LightMyRequestResponse, status: number, code?: string) => {
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json()
  expect(conformance.problems({ method: "POST", path: PATH, status, body })).toEqual([])
  if (code !== undefined) {
    expect(body.error.code).toBe(code)
    expect(body.error.request_id).toBe(response.headers["x-request-id"])
  }
  return body
}

describe("POST /v1/webhooks/deliveries/{deliveryId}/redeliver", () => {
  it("asks for a delivery that gave up to be sent again (202, what was asked), once however often it is asked", async () => {
    const { key, projectId } = await projectWithLog()
    const body = expectAnswer(await redeliver(key, GAVE_UP), 202)
    expect(body.data).toEqual({ delivery_id: GAVE_UP, event: "job.failed", job_id: JOB })
    expectAnswer(await redeliver(key, GAVE_UP), 202)
    const requests = await requestsOf(projectId)
    expect(requests.map((r) => r.event)).toEqual([
      expect.objectContaining({ projectId, deliveryId: GAVE_UP, jobId: JOB, eventType: "job.failed" })
    ])
  })

  it("refuses a delivery still being retried with 409 delivery_pending, naming its next attempt", async () => {
    const { key, projectId } = await projectWithLog()
    const body = expectAnswer(await redeliver(key, RETRYING), 409, "delivery_pending")
    expect(body.error.message).toMatch(/next attempt at \d{4}-\d{2}-\d{2}T/)
    expect(await requestsOf(projectId)).toEqual([])
  })

  it("answers 404 delivery_not_found for an unknown id, another project's delivery and a subscription's", async () => {
    const { key } = await projectWithLog()
    const other = await file.h.provisionKey()
    expectAnswer(await redeliver(key, "dlv_ffffffffffffffffffffffff"), 404, "delivery_not_found")
    expectAnswer(await redeliver(other.key, GAVE_UP), 404, "delivery_not_found")
    expectAnswer(await redeliver(key, SUBSCRIPTION), 404, "delivery_not_found")
    expect(await requestsOf(other.projectId)).toEqual([])
  })

  it.each([["job_aaaaaaaaaaaaaaaaaaaaaaaa"], ["dlv_0123"], ["DLV_0123456789ABCDEF01234567"], ["dlv_0123456789abcdef0123456%2F"]])(
    "refuses the malformed id %s with 400 invalid_request naming the parameter",
    async (deliveryId) => {
      const { key } = await projectWithLog()
      const body = expectAnswer(await redeliver(key, deliveryId), 400, "invalid_request")
      expect(body.error.message).toMatch(/^deliveryId:/)
    }
  )

  it("needs the media:download scope", async () => {
    const { projectId } = await projectWithLog()
    const { key: resolveOnly } = await file.h.provisionKey({ projectId, scopes: ["media:resolve"] })
    const body = expectAnswer(await redeliver(resolveOnly, GAVE_UP), 403, "insufficient_scope")
    expect(body.error.message).toContain("media:download")
    // Reading the log needs any key of the project.
    const log = await file.h.gateway.app.inject({ method: "GET", url: "/v1/webhooks/deliveries", headers: { "x-api-key": resolveOnly } })
    expect(log.json().data.map((d: { delivery_id: string }) => d.delivery_id)).toEqual([SUBSCRIPTION, RETRYING, GAVE_UP, GAVE_UP])
    expect(await requestsOf(projectId)).toEqual([])
  })
})
