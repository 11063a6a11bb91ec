// When NATS goes away: health reports degraded (503) and API calls answer 503 service_unavailable, not 500 or a hang.
import { describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
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
    const followersNow = async () => (await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })).json().data.followers
    const during = await eventually(
      followersNow,
      (f) => Object.values(f).every((state) => state === "recovering"),
      "every follower recovering",
      10_000
    )
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
    const healthNow = () => file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })
    expect((await eventually(healthNow, (r) => r.statusCode === 200, "health 200 again", 10_000)).statusCode).toBe(200)
    // And every follower delivers again, on consumers re-created after the restart.
    const recovered = await eventually(
      healthNow,
      (r) => Object.values(r.json().data.followers).every((state) => state === "following"),
      "every follower following again",
      10_000
    )
    expect(recovered.json().data.followers).toEqual({ job_views: "following", keys: "following", platforms: "following" })
  })
})
