// Operating against real platforms on a running stack: the fleet's yt-dlp release through the admin CLI, GET /health
// and the info metric; per-project cookies through the API (upload, metadata-only listing, use for a members-only
// page, media kept to the project, removal).
import { beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { freePort } from "../support/NatsServer.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"

let extractorMetrics: number

beforeAll(async () => {
  extractorMetrics = await freePort()
})

// Two keys of two projects: the first owns the cookies, the second is the other project.
const e2e = useMediaStack({ stack: () => ({ serviceEnv: { extractor: { METRICS_PORT: String(extractorMetrics) } } }), keys: 2 })
const owner = () => e2e.key
const other = () => e2e.keyAt(1)

describe("extractors CLI", () => {
  it("shows each extractor's yt-dlp release and records the fleet's choice", async () => {
    const before = await e2e.stack.cli(["extractors", "status"])
    expect(before).toMatch(/^choice: none/)
    expect(before).toMatch(/\n\S+\t2026\.10\.26\trunning\t/)
    await expect(e2e.stack.cli(["extractors", "use", "latest"])).rejects.toThrow(/must be stable, nightly or a yt-dlp version/)
    expect(await e2e.stack.cli(["extractors", "use", "2026.10.26"])).toBe("extractors will use 2026.10.26")
    const after = await e2e.stack.cli(["extractors", "status"])
    expect(after).toMatch(/^choice: 2026\.10\.26 \(since /)
    // The extractor already runs the chosen release: nothing to install, it stays as it was.
    expect(after).toMatch(/\t2026\.10\.26\trunning\t/)

    // Fleet-wide in GET /health (refreshed every 5 s at most), per extractor as a Prometheus info metric.
    const health: any = await eventually(
      async () => (await apiRequest(e2e.stack.baseUrl, "GET", "/health", {})).body.data,
      (data: any) => data?.yt_dlp?.choice === "2026.10.26",
      () => `the chosen release in GET /health\n${e2e.stack.logs()}`,
      10_000
    )
    expect(health.yt_dlp?.choice, `${JSON.stringify(health)}\n${e2e.stack.logs()}`).toBe("2026.10.26")
    expect(health.yt_dlp.extractors).toEqual([expect.objectContaining({ version: "2026.10.26", last_change: "running", reason: null })])
    const metrics = await (await fetch(`http://127.0.0.1:${extractorMetrics}/metrics`)).text()
    expect(metrics).toMatch(/^mds_ytdlp_info\{[^}]*version="2026\.10\.26"[^}]*\} 1$/m)
  })
})

describe("cookies API", () => {
  it("stores a cookies.txt, shows only its metadata, and refuses a malformed one", async () => {
    const bad = await apiRequest(e2e.stack.baseUrl, "POST", "/cookies", {
      key: owner(),
      json: { platform: "generic", cookies_txt: "not a cookie file" }
    })
    expect(bad.status, describeResponse(bad)).toBe(422)
    expect(bad.body.error).toMatchObject({ code: "invalid_cookie_file" })
    expect(bad.body.error.message).toMatch(/^cookies_txt: line 1/)
    const noPlatform = await apiRequest(e2e.stack.baseUrl, "POST", "/cookies", {
      key: owner(),
      json: { platform: "No Such!", cookies_txt: e2e.media.memberCookies() }
    })
    expect(noPlatform.status).toBe(400)

    const session = e2e.media.memberSession()
    const stored = await apiRequest(e2e.stack.baseUrl, "POST", "/cookies", {
      key: owner(),
      json: { platform: "generic", cookies_txt: e2e.media.memberCookies() }
    })
    expect(stored.status, describeResponse(stored)).toBe(200)
    expect(stored.body.data).toMatchObject({ platform: "generic", domains: ["127.0.0.1"], cookie_count: 1, change: "uploaded" })
    expect(JSON.stringify(stored.body)).not.toContain(session)

    const listed = await apiRequest(e2e.stack.baseUrl, "GET", "/cookies", { key: owner() })
    expect(listed.body.data).toHaveLength(1)
    expect(JSON.stringify(listed.body)).not.toContain(session)
    expect((await apiRequest(e2e.stack.baseUrl, "GET", "/cookies", { key: other() })).body.data).toEqual([])
    expect(e2e.stack.logs()).not.toContain(session)
  })

  it("resolves and downloads the members page with the owner's cookies; the media stays the owner's", async () => {
    const resolved = await apiRequest(e2e.stack.baseUrl, "POST", "/media/resolve", { key: owner(), json: { url: e2e.media.urls.members } })
    expect(resolved.status, e2e.context(resolved)).toBe(200)
    const mediaId = resolved.body.data.id as string

    // Another project gets neither the cached media nor the media id, and its own resolve has no cookies.
    const theirs = await apiRequest(e2e.stack.baseUrl, "POST", "/media/resolve", { key: other(), json: { url: e2e.media.urls.members } })
    expect(theirs.status, describeResponse(theirs)).not.toBe(200)
    const byId = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key: other(),
      json: { media_id: mediaId, format: "video_best" }
    })
    expect(byId.status, describeResponse(byId)).toBe(404)
    expect(byId.body.error.code).toBe("media_not_found")

    const download = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key: owner(),
      json: { media_id: mediaId, format: "video_best" }
    })
    expect(download.status, describeResponse(download)).toBe(202)
    const outcome = await pollJobUntilFinished(e2e.stack.baseUrl, owner(), download.body.data.job_id, {
      timeoutMs: 120_000,
      logs: e2e.stack.logs
    })
    expect(outcome.job?.status, JSON.stringify(outcome.job)).toBe("completed")

    // The session the site rotated during the resolve was kept: the stored file was replaced by it.
    const listed = await apiRequest(e2e.stack.baseUrl, "GET", "/cookies", { key: owner() })
    expect(listed.body.data[0].change).toBe("rotated")
  })

  it("removes the file; a later resolve goes without cookies", async () => {
    const removed = await apiRequest(e2e.stack.baseUrl, "DELETE", "/cookies/generic", { key: owner() })
    expect(removed.status, describeResponse(removed)).toBe(200)
    expect(removed.body.data).toEqual({ platform: "generic", removed: true })
    expect((await apiRequest(e2e.stack.baseUrl, "GET", "/cookies", { key: owner() })).body.data).toEqual([])
    const again = await apiRequest(e2e.stack.baseUrl, "DELETE", "/cookies/generic", { key: owner() })
    expect(again.body.data).toEqual({ platform: "generic", removed: false })
    const resolved = await apiRequest(e2e.stack.baseUrl, "POST", "/media/resolve", {
      key: owner(),
      json: { url: `${e2e.media.urls.members}?again=1` }
    })
    expect(resolved.status, describeResponse(resolved)).not.toBe(200)
  })
})
