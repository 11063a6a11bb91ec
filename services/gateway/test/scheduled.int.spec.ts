// Extension: a download of a stream that has not begun is scheduled: it answers when the stream starts, holds no slot
// (the project queues its two downloads meanwhile), reads as scheduled, and is canceled like any job.
import type { LightMyRequestResponse } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let key: string

beforeAll(async () => {
  h = await startHarness()
  ;({ key } = await h.provisionKey())
})
afterAll(async () => {
  await h?.close()
})

const request = (method: "GET" | "POST" | "DELETE", url: string, body?: unknown, headers: Record<string, string> = {}) =>
  h.gateway.app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), "x-api-key": key, ...headers }
  })
const data = (response: LightMyRequestResponse, status: number) => {
  expect(response.statusCode, response.body).toBe(status)
  return response.json().data
}

describe("a scheduled stream", () => {
  it("resolves as upcoming, is scheduled without a slot, reads as scheduled and cancels", async () => {
    const media = data(await request("POST", "/v1/media/resolve", { url: "https://vimeo.com/upcoming/1" }), 200)
    expect(media.live_status).toBe("is_upcoming")
    expect(Date.parse(media.release_at)).toBeGreaterThan(Date.now())
    const plain = data(await request("POST", "/v1/media/resolve", { url: "https://vimeo.com/555" }), 200)
    expect(plain.live_status).toBe("not_live")
    expect(plain).not.toHaveProperty("release_at")

    const body = { media_id: media.id, format: "video_best" }
    const once = { "idempotency-key": "scheduled-once" }
    const scheduled = data(await request("POST", "/v1/media/download", body, once), 202)
    expect(scheduled).toEqual({ job_id: expect.stringMatching(/^job_/), status: "scheduled", starts_at: media.release_at })
    // The same request again answers the same: the same job, scheduled.
    expect(data(await request("POST", "/v1/media/download", body, once), 202)).toEqual(scheduled)
    const job = data(await request("GET", `/v1/jobs/${scheduled.job_id}`), 200)
    expect(job).toMatchObject({ id: scheduled.job_id, status: "scheduled", starts_at: media.release_at, progress: 0 })

    // The scheduled job holds no slot: the project's two slots take two downloads, and only a third is refused.
    for (const n of [1, 2]) {
      const queued = data(await request("POST", "/v1/media/download", { media_id: plain.id, format: "video_best" }), 202)
      expect(queued.status, `download ${n}`).toBe("queued")
    }
    const third = await request("POST", "/v1/media/download", { media_id: plain.id, format: "video_best" })
    expect(third.statusCode, third.body).toBe(429)
    expect(third.json().error.code).toBe("concurrency_limit_exceeded")

    const canceled = data(await request("DELETE", `/v1/jobs/${scheduled.job_id}`), 200)
    expect(canceled).toMatchObject({ status: "failed", error: { code: "canceled" } })
  })
})
