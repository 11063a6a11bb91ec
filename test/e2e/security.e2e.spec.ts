// End to end through the running services: SSRF refused as a clear 4xx or failed job (never a hang), and API keys
// never written to any service's log, wherever a client puts them.
import { describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { apiFor, apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"

const e2e = useMediaStack({
  stack: () => ({
    env: {
      // Names the egress guard resolves itself: a cloud metadata address, loopback, a mapped private address, and
      // (for every other name) a documentation address it refuses, so that no test request reaches DNS or the internet.
      EGRESS_RESOLVE_OVERRIDES:
        "metadata.ssrf.test=169.254.169.254,loopback.ssrf.test=127.0.0.1,mapped.ssrf.test=::ffff:10.0.0.1,*=192.0.2.1",
      // Every request line is logged (at Debug), so that the key test below sees what a verbose deployment writes.
      LOG_LEVEL: "Debug"
    }
  })
})

describe("SSRF through the whole stack", () => {
  it.each([
    "http://metadata.ssrf.test/latest/meta-data/",
    "http://loopback.ssrf.test:8080/admin",
    "http://mapped.ssrf.test/x.mp4",
    "http://0xa9.254.169.254/latest/meta-data/",
    "http://[::ffff:7f00:1]/x.mp4"
  ])("resolve %s -> 422 url_not_allowed at the gateway", async (url) => {
    const response = await e2e.api.resolve(url)
    expect(response.status, describeResponse(response)).toBe(422)
    expect(response.body.error.code).toBe("url_not_allowed")
    expect(response.body.error.retryable).toBe(false)
  })

  it("resolve of a public-looking URL that redirects to the metadata service -> 422 url_not_allowed from the extractor", async () => {
    const response = await e2e.api.resolve(e2e.media.urls.redirectTo("http://metadata.ssrf.test/latest/meta-data/iam"))
    expect(response.status, e2e.context(response)).toBe(422)
    expect(response.body.error.code).toBe("url_not_allowed")
    expect(response.body.error.message).toContain("169.254.169.254")
  })

  it("a download redirected to loopback fails with url_not_allowed, and its slot is free again", async () => {
    const { key: own } = await e2e.stack.provisionKey()
    const ownApi = apiFor(e2e.stack.baseUrl, own)
    const queued = await ownApi.download({
      url: e2e.media.urls.redirectTo("http://loopback.ssrf.test:8080/secret.mp4"),
      format: "video_best"
    })
    expect(queued.status, describeResponse(queued)).toBe(202)
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, own, queued.body.data.job_id, { logs: e2e.stack.logs })
    expect(job.status).toBe("failed")
    expect(job.error).toMatchObject({ code: "url_not_allowed", retryable: false })
    const again = [
      await ownApi.download({ url: e2e.media.urls.mp4, format: "audio_m4a" }),
      await ownApi.download({ url: e2e.media.urls.mp4, format: "audio_mp3" })
    ]
    expect(
      again.map((r) => r.status),
      again.map(describeResponse).join("\n")
    ).toEqual([202, 202])
  })
})

describe("API keys in logs", () => {
  it("a key sent in a header, the query, the path or a body never shows up in any service's log", async () => {
    const unknown = `svc_live_${"Q".repeat(40)}`
    await apiRequest(e2e.stack.baseUrl, "GET", `/platforms?api_key=${e2e.key}`)
    await apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${e2e.key}`, { key: e2e.key })
    await apiRequest(e2e.stack.baseUrl, "POST", "/media/resolve", { key: e2e.key, json: { url: `https://vimeo.com/${e2e.key}` } })
    await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key: e2e.key,
      json: { url: `http://metadata.ssrf.test/?k=${e2e.key}`, format: "video_best" }
    })
    await apiRequest(e2e.stack.baseUrl, "GET", "/platforms", { key: unknown })
    const last = await apiRequest(e2e.stack.baseUrl, "GET", "/platforms", { key: `Bearer ${e2e.key}` })
    // Every request line is written once the last request's is.
    const lastId: string = last.body.error.request_id
    const logs = await eventually(
      async () => e2e.stack.logs(),
      (text) => text.includes(lastId),
      `the log line of ${lastId}`,
      5_000
    )
    expect(logs).toContain("/v1/jobs/")
    for (const secret of [e2e.key, unknown]) {
      const body = secret.slice("svc_live_".length)
      expect(logs.includes(body), `a key body appears in the logs:\n${logs}`).toBe(false)
    }
    // What remains is the display prefix, enough to tell keys apart.
    expect(logs).toContain(e2e.key.slice(0, "svc_live_".length + 4))
  })
})
