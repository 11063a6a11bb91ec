// Request limits at the HTTP edge: per-key rate with RateLimit-* headers, the 2 s polling rule, keys masked in errors.
import type { LightMyRequestResponse } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, startHarness } from "./GatewayHarness.ts"

const RATE_LIMIT = 8
let h: Harness

beforeAll(async () => {
  h = await startHarness({ API_RATE_LIMIT_PER_MINUTE: String(RATE_LIMIT) })
})
afterAll(async () => {
  await h?.close()
})

const getJob = (key: string, jobId: string) =>
  h.gateway.app.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers: { "x-api-key": key } })
const queue = (key: string) =>
  h.gateway.app.inject({
    method: "POST",
    url: "/v1/media/download",
    payload: JSON.stringify({ url: "https://vimeo.com/76979871", format: "video_best" }),
    headers: { "content-type": "application/json", "x-api-key": key }
  })

const expectError = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status)
  expect(response.json().error.code).toBe(code)
  expect(response.json().error.request_id).toBe(response.headers["x-request-id"])
  return response.json().error as { message: string }
}

describe("per-key request rate", () => {
  it("counts down RateLimit-Remaining, then answers 429 rate_limit_exceeded with Retry-After, for that key only", async () => {
    const { key } = await h.provisionKey()
    const { key: other } = await h.provisionKey()
    const remaining: Array<string> = []
    for (let i = 0; i < RATE_LIMIT; i++) {
      const response = await h.gateway.app.inject({
        method: "GET",
        url: "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa",
        headers: { "x-api-key": key }
      })
      expect(response.statusCode).toBe(404)
      expect(response.headers["ratelimit-limit"]).toBe(String(RATE_LIMIT))
      expect(response.headers["ratelimit-policy"]).toBe(`${RATE_LIMIT};w=60`)
      remaining.push(String(response.headers["ratelimit-remaining"]))
    }
    expect(remaining).toEqual(Array.from({ length: RATE_LIMIT }, (_, i) => String(RATE_LIMIT - 1 - i)))

    const limited = await h.gateway.app.inject({
      method: "POST",
      url: "/v1/media/resolve",
      payload: "{}",
      headers: { "content-type": "application/json", "x-api-key": key }
    })
    expectError(limited, 429, "rate_limit_exceeded")
    const retryAfter = Number(limited.headers["retry-after"])
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(limited.headers["ratelimit-remaining"]).toBe("0")
    expect(limited.headers["ratelimit-reset"]).toBe(String(retryAfter))

    const unaffected = await h.gateway.app.inject({
      method: "GET",
      url: "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa",
      headers: { "x-api-key": other }
    })
    expect(unaffected.statusCode).toBe(404)
    expect(unaffected.headers["ratelimit-remaining"]).toBe(String(RATE_LIMIT - 1))
  })

  it("successful answers carry the headers too; routes without a key are not counted", async () => {
    const { key } = await h.provisionKey()
    for (let i = 0; i < RATE_LIMIT + 2; i++) expect((await h.gateway.app.inject({ method: "GET", url: "/v1/health" })).statusCode).toBe(200)
    const queued = await queue(key)
    expect(queued.statusCode, queued.body).toBe(202)
    expect(queued.headers["ratelimit-remaining"]).toBe(String(RATE_LIMIT - 1))
  })
})

describe("polling a job", () => {
  // After the interval the poll is answered again: PollingGuard.unit.spec.ts shows it at given times, without waiting 2 s here.
  it("a second poll of the same job within 2 s is 429 polling_too_fast with Retry-After", async () => {
    const { key } = await h.provisionKey()
    const jobId = (await queue(key)).json().data.job_id as string
    expect((await getJob(key, jobId)).statusCode).toBe(200)
    const tooFast = await getJob(key, jobId)
    const error = expectError(tooFast, 429, "polling_too_fast")
    expect(error.message).toContain("2 s")
    expect(["1", "2"]).toContain(tooFast.headers["retry-after"])
  })

  it("the rule is per key and per job, and unknown jobs are 404 at any pace", async () => {
    const { key, projectId } = await h.provisionKey()
    const { key: sibling } = await h.provisionKey({ projectId })
    const first = (await queue(key)).json().data.job_id as string
    const second = (await queue(key)).json().data.job_id as string
    expect((await getJob(key, first)).statusCode).toBe(200)
    expect((await getJob(key, second)).statusCode).toBe(200)
    expect((await getJob(sibling, first)).statusCode).toBe(200)
    for (let i = 0; i < 3; i++) expectError(await getJob(key, "job_bbbbbbbbbbbbbbbbbbbbbbbb"), 404, "job_not_found")
  })
})

describe("keys in errors", () => {
  it("a key pasted into the path is masked in the error message", async () => {
    const { key } = await h.provisionKey()
    const error = expectError(await getJob(key, key), 404, "job_not_found")
    expect(error.message).not.toContain(key)
    // The display prefix remains, enough to tell keys apart.
    expect(error.message).toContain(key.slice(0, "svc_live_".length + 4))
  })

  it("a key glued into a job id, or percent-encoded, is masked too", async () => {
    const { key } = await h.provisionKey()
    const body = key.slice("svc_live_".length)
    for (const path of [`job_${key}`, `${key}_x`, `svc%5Flive%5F${body}`]) {
      const response = await getJob(key, path)
      expect(response.statusCode, path).toBeGreaterThanOrEqual(400)
      expect(response.body, path).not.toContain(body.slice(4))
    }
  })
})

describe("failed authentications", () => {
  it("past 30 invalid keys a minute from one address: 429 with Retry-After instead of 401; a valid key still works", async () => {
    const { key } = await h.provisionKey()
    const wrong = (i: number) => `svc_live_${"Zz9y".repeat(9)}${String(i).padStart(4, "0")}`
    const codes: Array<string> = []
    for (let i = 0; i < 31; i++) codes.push((await getJob(wrong(i), "job_aaaaaaaaaaaaaaaaaaaaaaaa")).json().error.code)
    expect(codes.slice(0, 30), codes.join(",")).toEqual(Array(30).fill("invalid_api_key"))
    const throttled = await getJob(wrong(99), "job_aaaaaaaaaaaaaaaaaaaaaaaa")
    const error = expectError(throttled, 429, "rate_limit_exceeded")
    // It names what was counted: the caller's key is not valid, so "this API key made too many requests" would mislead.
    expect(error.message).toMatch(/failed authentications from this address or key prefix/)
    expect(Number(throttled.headers["retry-after"])).toBeGreaterThanOrEqual(1)
    expect(throttled.json().error.retry_after).toBe(Number(throttled.headers["retry-after"]))
    expect((await getJob(key, "job_aaaaaaaaaaaaaaaaaaaaaaaa")).statusCode).toBe(404)
  })
})
