// Idempotency-Key on POST /v1/media/download (extension): replays, 409 on another body, races, release after failures.
import type { LightMyRequestResponse } from "fastify"
import { describe, expect, it } from "vitest"
import { type GatewayInstance, useHarness } from "./GatewayHarness.ts"

const file = useHarness({ second: true })

const download = (key: string, payload: string, idempotencyKey?: string, gateway: GatewayInstance = file.h.gateway) =>
  gateway.app.inject({
    method: "POST",
    url: "/v1/media/download",
    payload,
    headers: {
      "content-type": "application/json",
      "x-api-key": key,
      ...(idempotencyKey === undefined ? {} : { "idempotency-key": idempotencyKey })
    }
  })

const jobIdOf = (response: LightMyRequestResponse) => {
  expect(response.statusCode, response.body).toBe(202)
  return response.json().data.job_id as string
}

describe("Idempotency-Key", () => {
  it("the same key and body answer with the same job, whatever the field order and spacing", async () => {
    const { key } = await file.h.provisionKey()
    const first = await download(key, `{"url":"https://vimeo.com/1","format":"video_best"}`, "order-42")
    const again = await download(key, `{ "format": "video_best",  "url": "https://vimeo.com/1" }`, "order-42", file.second)
    expect(jobIdOf(again)).toBe(jobIdOf(first))
    expect(first.headers["idempotent-replayed"]).toBeUndefined()
    expect(again.headers["idempotent-replayed"]).toBe("true")
    // The job counts once: a second distinct job still fits the limit of 2.
    jobIdOf(await download(key, `{"url":"https://vimeo.com/2","format":"video_best"}`))
  })

  it("another body with the same key is 409 idempotency_key_reused", async () => {
    const { key } = await file.h.provisionKey()
    jobIdOf(await download(key, `{"url":"https://vimeo.com/1","format":"video_best"}`, "k-1"))
    const reused = await download(key, `{"url":"https://vimeo.com/1","format":"audio_m4a"}`, "k-1")
    expect(reused.statusCode).toBe(409)
    expect(reused.json().error.code).toBe("idempotency_key_reused")
    expect(reused.json().error.request_id).toBe(reused.headers["x-request-id"])
  })

  it("concurrent requests with one key on two gateways create exactly one job", async () => {
    const { key } = await file.h.provisionKey()
    const body = `{"url":"https://vimeo.com/race","format":"video_best"}`
    const responses = await Promise.all(
      Array.from({ length: 6 }, (_, i) => download(key, body, "race-key", i % 2 === 0 ? file.h.gateway : file.second))
    )
    const ids = new Set(responses.map(jobIdOf))
    expect(ids.size, responses.map((r) => r.body).join("\n")).toBe(1)
    const job = await file.h.gateway.app.inject({ method: "GET", url: `/v1/jobs/${[...ids][0]}`, headers: { "x-api-key": key } })
    expect(job.statusCode).toBe(200)
  })

  it("a request refused with 429 frees its key: a retry with it is carried out anew", async () => {
    const { key } = await file.h.provisionKey()
    jobIdOf(await download(key, `{"url":"https://vimeo.com/a","format":"video_best"}`))
    jobIdOf(await download(key, `{"url":"https://vimeo.com/b","format":"video_best"}`))
    const refused = await download(key, `{"url":"https://vimeo.com/c","format":"video_best"}`, "after-429")
    expect(refused.statusCode).toBe(429)
    // Had the key stayed bound or pending, another body would be 409; a free key gives the limit's answer again.
    const other = await download(key, `{"url":"https://vimeo.com/d","format":"video_best"}`, "after-429")
    expect(other.statusCode, other.body).toBe(429)
  })

  it("keys belong to a project: the same key in another project is another job", async () => {
    const a = await file.h.provisionKey()
    const b = await file.h.provisionKey()
    const body = `{"url":"https://vimeo.com/shared","format":"video_best"}`
    expect(jobIdOf(await download(a.key, body, "shared-key"))).not.toBe(jobIdOf(await download(b.key, body, "shared-key")))
  })

  it("a malformed key is 400 invalid_request; without the header nothing changes", async () => {
    const { key } = await file.h.provisionKey()
    const bad = await download(key, `{"url":"https://vimeo.com/1","format":"video_best"}`, "has space")
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error.code).toBe("invalid_request")
    expect(bad.json().error.message).toContain("Idempotency-Key")
    const plain = `{"url":"https://vimeo.com/1","format":"video_best"}`
    expect(jobIdOf(await download(key, plain))).not.toBe(jobIdOf(await download(key, plain)))
  })
})
