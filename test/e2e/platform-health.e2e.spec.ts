// The platform circuit breaker end to end: yt-dlp meets HTTP 429 twice, the extractor pauses the platform, and the
// gateway reports it in GET /platforms and refuses new work for it with 503 platform_paused.
import { describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { useMediaStack } from "./MediaStack.ts"

const e2e = useMediaStack({ stack: () => ({ env: { PLATFORM_BLOCKS_TO_PAUSE: "2", PLATFORM_PAUSE_SECONDS: "600" } }) })

const genericHealth = async () => {
  const response = await apiRequest(e2e.stack.baseUrl, "GET", "/platforms", { key: e2e.key })
  expect(response.status, describeResponse(response)).toBe(200)
  return response.body.data.find((p: any) => p.id === "generic").health
}

describe("platform health", () => {
  it("two rate-limited extractions pause the platform for the configured time", async () => {
    const api = e2e.api
    const ok = await api.resolve(e2e.media.urls.mp4)
    expect(ok.status, describeResponse(ok)).toBe(200)
    for (let i = 0; i < 2; i++) {
      const limited = await api.resolve(e2e.media.urls.rateLimited)
      expect(limited.status, e2e.context(limited)).toBe(502)
      expect(limited.body.error.code).toBe("extraction_failed")
    }
    const before = Date.now()
    const health = await eventually(
      genericHealth,
      (h) => h.status === "paused",
      () => `the generic platform paused\n${e2e.stack.logs()}`,
      5_000
    )
    expect(health.status, e2e.stack.logs()).toBe("paused")
    expect(health.sample_size).toBe(3)
    expect(health.success_rate).toBeCloseTo(1 / 3, 2)
    const pausedFor = Date.parse(health.paused_until) - before
    expect(pausedFor).toBeGreaterThan(590_000)
    expect(pausedFor).toBeLessThanOrEqual(600_000)

    const refused = await api.resolve(e2e.media.urls.page)
    expect(refused.status, describeResponse(refused)).toBe(503)
    expect(refused.body.error.code).toBe("platform_paused")
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(590)
    const download = await api.download({ url: e2e.media.urls.mp4, format: "video_best" })
    expect(download.status).toBe(503)
    expect(download.body.error.code).toBe("platform_paused")
  })
})
