// When NATS goes away: health reports degraded (503) and API calls answer 503 service_unavailable, not 500 or a hang.
import { describe, expect, it } from "vitest"
import { useHarness } from "./GatewayHarness.ts"

const file = useHarness({ key: true })

describe("NATS outage", () => {
  it("degraded health and 503 service_unavailable, then ok again after NATS returns", async () => {
    // The key is known to the directory before the outage.
    const warm = await file.h.gateway.app.inject({
      method: "GET",
      url: "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa",
      headers: { "x-api-key": file.key }
    })
    expect(warm.statusCode).toBe(404)

    await file.h.nats.stop()
    const health = await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })
    expect(health.statusCode).toBe(503)
    expect(health.json()).toMatchObject({ data: { status: "degraded", version: "v1" } })
    // Within seconds every follower notices that its consumer no longer delivers.
    let during = health.json().data.followers
    for (let i = 0; i < 100 && Object.values(during).some((state) => state !== "recovering"); i++) {
      await new Promise((r) => setTimeout(r, 100))
      during = (await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })).json().data.followers
    }
    expect(during).toEqual({ job_views: "recovering", keys: "recovering", platforms: "recovering" })

    const download = await file.h.gateway.app.inject({
      method: "POST",
      url: "/v1/media/download",
      payload: JSON.stringify({ url: "https://vimeo.com/1", format: "video_best" }),
      headers: { "content-type": "application/json", "x-api-key": file.key }
    })
    expect(download.statusCode, download.body).toBe(503)
    expect(download.json().error.code).toBe("service_unavailable")
    expect(download.json().error.request_id).toBe(download.headers["x-request-id"])

    await file.h.nats.start()
    let recovered = await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })
    for (let i = 0; i < 40 && recovered.statusCode !== 200; i++) {
      await new Promise((r) => setTimeout(r, 250))
      recovered = await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })
    }
    expect(recovered.statusCode).toBe(200)
    // And every follower delivers again, on consumers re-created after the restart.
    for (let i = 0; i < 100 && Object.values(recovered.json().data.followers).some((state) => state !== "following"); i++) {
      await new Promise((r) => setTimeout(r, 100))
      recovered = await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })
    }
    expect(recovered.json().data.followers).toEqual({ job_views: "following", keys: "following", platforms: "following" })
  })
})
