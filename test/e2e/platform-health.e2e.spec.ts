// The platform circuit breaker end to end: yt-dlp meets HTTP 429 twice, the extractor pauses the platform, and the
// gateway reports it in GET /platforms and refuses new work for it with 503 platform_paused.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MediaServer, startMediaServer } from "../support/MediaServer.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { apiFor, apiRequest, describeResponse } from "./ApiClient.ts"

let media: MediaServer
let stack: ServiceStack
let key: string

beforeAll(async () => {
  media = await startMediaServer()
  stack = await startServiceStack({
    env: { EGRESS_ALLOW: media.hostPort, PLATFORM_BLOCKS_TO_PAUSE: "2", PLATFORM_PAUSE_SECONDS: "600" }
  })
  key = (await stack.provisionKey()).key
})
afterAll(async () => {
  await stack?.close()
  await media?.close()
})

const genericHealth = async () => {
  const response = await apiRequest(stack.baseUrl, "GET", "/platforms", { key })
  expect(response.status, describeResponse(response)).toBe(200)
  return response.body.data.find((p: any) => p.id === "generic").health
}

describe("platform health", () => {
  it("two rate-limited extractions pause the platform for the configured time", async () => {
    const api = apiFor(stack.baseUrl, key)
    const ok = await api.resolve(media.urls.mp4)
    expect(ok.status, describeResponse(ok)).toBe(200)
    for (let i = 0; i < 2; i++) {
      const limited = await api.resolve(media.urls.rateLimited)
      expect(limited.status, `${describeResponse(limited)}\n${stack.logs()}`).toBe(502)
      expect(limited.body.error.code).toBe("extraction_failed")
    }
    const before = Date.now()
    let health = await genericHealth()
    for (let i = 0; i < 50 && health.status !== "paused"; i++) {
      await new Promise((r) => setTimeout(r, 100))
      health = await genericHealth()
    }
    expect(health.status, stack.logs()).toBe("paused")
    expect(health.sample_size).toBe(3)
    expect(health.success_rate).toBeCloseTo(1 / 3, 2)
    const pausedFor = Date.parse(health.paused_until) - before
    expect(pausedFor).toBeGreaterThan(590_000)
    expect(pausedFor).toBeLessThanOrEqual(600_000)

    const refused = await api.resolve(media.urls.page)
    expect(refused.status, describeResponse(refused)).toBe(503)
    expect(refused.body.error.code).toBe("platform_paused")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(590)
    const download = await api.download({ url: media.urls.mp4, format: "video_best" })
    expect(download.status).toBe(503)
    expect(download.body.error.code).toBe("platform_paused")
  })
})
