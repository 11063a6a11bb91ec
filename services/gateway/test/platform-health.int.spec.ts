// Platform health (extension) in the gateway: GET /platforms reports recorded outcomes, and a paused platform's
// resolves and downloads are refused with 503 platform_paused until the stated time.
import { recordPlatformOutcome } from "@mds/shared/application/platform/PlatformHealthCommands"
import { defaultBreakerPolicy } from "@mds/shared/domain/platform/PlatformHealthDecider"
import type { PlatformOutcome } from "@mds/shared/domain/platform/PlatformHealthEvent"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let key: string

beforeAll(async () => {
  h = await startHarness()
  key = (await h.provisionKey()).key
  await h.publishCatalog(["Vimeo", "Dailymotion"], "health-catalog")
})
afterAll(async () => {
  await h?.close()
})

/** What the extractor records after a resolve or download of the platform. */
const record = (platform: string, outcome: PlatformOutcome) =>
  h.gateway.run(recordPlatformOutcome({ _tag: "RecordOutcome", platform, outcome, now: Date.now(), policy: defaultBreakerPolicy }))

const platforms = async () => {
  const response = await h.gateway.app.inject({ method: "GET", url: "/v1/platforms", headers: { "x-api-key": key } })
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data as ReadonlyArray<{ id: string; health: any }>
}

const healthOf = (platform: string, until: (health: any) => boolean) =>
  eventually(async () => (await platforms()).find((p) => p.id === platform)?.health, until, `the health of ${platform}`, 5_000)

const post = (url: string, payload: unknown) =>
  h.gateway.app.inject({
    method: "POST",
    url,
    payload: payload as object,
    headers: { "content-type": "application/json", "x-api-key": key }
  })

describe("platform health", () => {
  it("reports the recent success rate of a platform", async () => {
    await record("dailymotion", "ok")
    await record("dailymotion", "failed")
    await record("dailymotion", "ok")
    await record("dailymotion", "ok")
    const health = await healthOf("dailymotion", (x) => x?.sample_size === 4)
    expect(health).toEqual({ status: "ok", success_rate: 0.75, sample_size: 4, paused_until: null })
  })

  it("pauses a platform after repeated blocks: GET /platforms says until when, resolves and downloads get 503 platform_paused", async () => {
    const resolved = await post("/v1/media/resolve", { url: "https://vimeo.com/123" })
    expect(resolved.statusCode, resolved.body).toBe(200)
    const before = Date.now()
    for (let i = 0; i < defaultBreakerPolicy.blocksToPause; i++) await record("vimeo", "blocked")
    const health = await healthOf("vimeo", (x) => x?.status === "paused")
    expect(health.status).toBe("paused")
    expect(health.success_rate).toBe(0)
    const until = Date.parse(health.paused_until)
    expect(until).toBeGreaterThanOrEqual(before + defaultBreakerPolicy.pauseMs)
    expect(until).toBeLessThanOrEqual(Date.now() + defaultBreakerPolicy.pauseMs)

    const refusals = [
      await post("/v1/media/resolve", { url: "https://vimeo.com/456" }),
      await post("/v1/media/download", { url: "https://vimeo.com/456", format: "video_best" }),
      await post("/v1/media/download", { media_id: resolved.json().data.id, format: "video_best" })
    ]
    for (const refused of refusals) {
      expect(refused.statusCode, refused.body).toBe(503)
      expect(refused.json().error.code).toBe("platform_paused")
      expect(refused.json().error.message).toContain(health.paused_until)
      const retryAfter = Number(refused.headers["retry-after"])
      expect(retryAfter).toBeGreaterThan(defaultBreakerPolicy.pauseMs / 1000 - 10)
      expect(retryAfter).toBeLessThanOrEqual(defaultBreakerPolicy.pauseMs / 1000)
    }
    // Other platforms are not affected.
    expect((await post("/v1/media/resolve", { url: "https://www.dailymotion.com/video/x8abc" })).statusCode).toBe(200)
  })
})
