// End to end: the /v1 contract around the edges: health, platforms, the error envelope, authentication, scopes and URL refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/NatsServer.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { type ApiResponse, apiRequest, describeResponse } from "./ApiClient.ts"

const ALLOWED_CAPABILITIES = new Set(["video", "audio", "image", "metadata"])
const UNKNOWN_MEDIA_ID = "med_aaaaaaaaaaaaaaaaaaaaaaaa"
const UNKNOWN_JOB_ID = "job_aaaaaaaaaaaaaaaaaaaaaaaa"

let stack: ServiceStack
let key: string
let base: string

beforeAll(async () => {
  stack = await startServiceStack()
  base = stack.baseUrl
  key = (await stack.provisionKey()).key
})

afterAll(async () => {
  await stack?.close()
})

/** Checks the error envelope and that its request id is the one in the X-Request-Id header. */
const expectError = (response: ApiResponse, status: number, code: string) => {
  const context = `${describeResponse(response)}\n${stack.logs()}`
  expect(response.status, context).toBe(status)
  expect(response.body?.error?.code, context).toBe(code)
  expect(typeof response.body?.error?.message, context).toBe("string")
  expect(response.body.error.message.length, context).toBeGreaterThan(0)
  const requestId = response.headers.get("x-request-id")
  expect(requestId, context).toBeTruthy()
  expect(response.body.error.request_id, context).toBe(requestId)
}

describe("health", () => {
  it("answers ok with version v1 and no key", async () => {
    const response = await apiRequest(base, "GET", "/health")
    expect(response.status, describeResponse(response)).toBe(200)
    expect(response.body).toMatchObject({ data: { status: "ok", version: "v1" } })
    expect(Object.keys((response.body as { data: { followers: object } }).data.followers).sort()).toEqual(["job_views", "keys", "platforms"])
    expect(response.headers.get("x-request-id")).toBeTruthy()
  })
})

describe("platforms", () => {
  it("needs a key", async () => {
    expectError(await apiRequest(base, "GET", "/platforms"), 401, "missing_api_key")
  })

  it("lists generic, never youtube, with cacheable headers and allowed capabilities", async () => {
    const response = await apiRequest(base, "GET", "/platforms", { key })
    expect(response.status, `${describeResponse(response)}\n${stack.logs()}`).toBe(200)
    const cacheControl = response.headers.get("cache-control") ?? ""
    expect(cacheControl).toMatch(/\bpublic\b/)
    expect(cacheControl).toMatch(/\bmax-age=300\b/)
    const platforms = response.body.data as Array<any>
    expect(Array.isArray(platforms)).toBe(true)
    expect(platforms.map((p) => p.id)).toContain("generic")
    for (const platform of platforms) {
      expect(typeof platform.id).toBe("string")
      expect(typeof platform.name).toBe("string")
      expect(typeof platform.source).toBe("string")
      expect(platform.capabilities.length, platform.id).toBeGreaterThan(0)
      for (const capability of platform.capabilities) expect(ALLOWED_CAPABILITIES, platform.id).toContain(capability)
      expect(`${platform.id} ${platform.name}`).not.toMatch(/youtube/i)
    }
    expect(new Set(platforms.map((p) => p.id)).size).toBe(platforms.length)
  })
})

describe("error envelope", () => {
  it("unknown route -> 404 not_found", async () => {
    expectError(await apiRequest(base, "GET", "/no-such-route", { key }), 404, "not_found")
  })

  it("wrong method on a known route -> 405 with Allow", async () => {
    const response = await apiRequest(base, "DELETE", "/media/resolve", { key })
    expectError(response, 405, "method_not_allowed")
    expect(response.headers.get("allow") ?? "").toMatch(/POST/)
    expectError(await apiRequest(base, "POST", "/health"), 405, "method_not_allowed")
  })

  it("malformed JSON -> 400 invalid_json", async () => {
    expectError(await apiRequest(base, "POST", "/media/resolve", { key, rawBody: '{"url": ' }), 400, "invalid_json")
  })

  it("oversize body -> 413 payload_too_large", async () => {
    const rawBody = JSON.stringify({ url: `https://example.com/${"a".repeat(200_000)}` })
    expectError(await apiRequest(base, "POST", "/media/resolve", { key, rawBody }), 413, "payload_too_large")
  })

  it("wrong content type -> 415 unsupported_media_type", async () => {
    const response = await apiRequest(base, "POST", "/media/resolve", {
      key,
      rawBody: "url=https://example.com/a.mp4",
      headers: { "content-type": "application/x-www-form-urlencoded" }
    })
    expectError(response, 415, "unsupported_media_type")
  })

  it("validation failures -> 400 invalid_request naming the field", async () => {
    const missing = await apiRequest(base, "POST", "/media/resolve", { key, json: {} })
    expectError(missing, 400, "invalid_request")
    expect(missing.body.error.message).toMatch(/url/)
    expectError(await apiRequest(base, "POST", "/media/resolve", { key, json: { url: 42 } }), 400, "invalid_request")
    expectError(await apiRequest(base, "POST", "/media/resolve", { key, json: { url: "not a url" } }), 400, "invalid_request")
    expectError(await apiRequest(base, "POST", "/media/resolve", { key, json: { url: "ftp://example.com/a.mp4" } }), 400, "invalid_request")

    const noFormat = await apiRequest(base, "POST", "/media/download", { key, json: { media_id: UNKNOWN_MEDIA_ID } })
    expectError(noFormat, 400, "invalid_request")
    expect(noFormat.body.error.message).toMatch(/format/)
    const both = { media_id: UNKNOWN_MEDIA_ID, url: "https://example.com/a.mp4", format: "video_best" }
    expectError(await apiRequest(base, "POST", "/media/download", { key, json: both }), 400, "invalid_request")
    const neither = { format: "video_best" }
    expectError(await apiRequest(base, "POST", "/media/download", { key, json: neither }), 400, "invalid_request")
  })

  it("unknown or malformed job id -> 404 job_not_found", async () => {
    expectError(await apiRequest(base, "GET", `/jobs/${UNKNOWN_JOB_ID}`, { key }), 404, "job_not_found")
    expectError(await apiRequest(base, "GET", "/jobs/not-a-job-id", { key }), 404, "job_not_found")
  })

  it("every response carries a distinct request id", async () => {
    const a = await apiRequest(base, "GET", "/health")
    const b = await apiRequest(base, "GET", "/health")
    expect(a.headers.get("x-request-id")).not.toBe(b.headers.get("x-request-id"))
  })
})

describe("authentication", () => {
  it("missing key -> 401 missing_api_key", async () => {
    expectError(await apiRequest(base, "POST", "/media/resolve", { json: { url: "https://example.com/a.mp4" } }), 401, "missing_api_key")
  })

  it("unknown and malformed keys -> 401 invalid_api_key", async () => {
    const unknown = `svc_live_${"A".repeat(40)}`
    expectError(await apiRequest(base, "GET", "/platforms", { key: unknown }), 401, "invalid_api_key")
    expectError(await apiRequest(base, "GET", "/platforms", { key: "hello" }), 401, "invalid_api_key")
    expectError(await apiRequest(base, "GET", "/platforms", { key: unknown, bearer: true }), 401, "invalid_api_key")
  })

  it("a key in the query string is refused", async () => {
    for (const name of ["api_key", "key", "apiKey", "x-api-key"]) {
      const response = await apiRequest(base, "GET", `/platforms?${name}=${encodeURIComponent(key)}`)
      expectError(response, 401, "missing_api_key")
    }
  })

  it("accepts both X-API-Key and Authorization: Bearer", async () => {
    const viaHeader = await apiRequest(base, "GET", "/platforms", { key })
    const viaBearer = await apiRequest(base, "GET", "/platforms", { key, bearer: true })
    expect(viaHeader.status, describeResponse(viaHeader)).toBe(200)
    expect(viaBearer.status, describeResponse(viaBearer)).toBe(200)
  })

  it("live and test keys carry their prefixes", async () => {
    const live = await stack.provisionKey({ env: "live" })
    const test = await stack.provisionKey({ env: "test" })
    expect(live.projectId).toMatch(/^prj_/)
    expect(live.key).toMatch(/^svc_live_/)
    expect(test.key).toMatch(/^svc_test_/)
    const response = await apiRequest(base, "GET", "/platforms", { key: test.key })
    expect(response.status, describeResponse(response)).toBe(200)
  })

  it("a revoked key stops working", async () => {
    const { key: doomed } = await stack.provisionKey()
    const before = await apiRequest(base, "GET", "/platforms", { key: doomed })
    expect(before.status, describeResponse(before)).toBe(200)
    await stack.cli(["key", "revoke", doomed])
    // The gateway follows revocations through a consumer: allow it a moment, never a stale success for long.
    const deadline = Date.now() + 10_000
    let after = await apiRequest(base, "GET", "/platforms", { key: doomed })
    while (after.status === 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200))
      after = await apiRequest(base, "GET", "/platforms", { key: doomed })
    }
    expectError(after, 401, "revoked_api_key")
    expectError(await apiRequest(base, "GET", "/platforms", { key: doomed, bearer: true }), 401, "revoked_api_key")
  })

  it("revoking an unknown key fails in the CLI", async () => {
    await expect(stack.cli(["key", "revoke", `svc_live_${"B".repeat(40)}`])).rejects.toThrow()
  })

  it("creating a key for an unknown project fails in the CLI", async () => {
    await expect(
      stack.cli(["key", "create", "--project", "prj_aaaaaaaaaaaaaaaaaaaaaaaa", "--name", "x", "--scopes", "media:resolve"])
    ).rejects.toThrow()
  })

  it("a missing scope -> 403 insufficient_scope naming the scope", async () => {
    const { key: resolveOnly } = await stack.provisionKey({ scopes: ["media:resolve"] })
    const { key: downloadOnly } = await stack.provisionKey({ scopes: ["media:download"] })
    const denied = await apiRequest(base, "POST", "/media/download", {
      key: resolveOnly,
      json: { url: "https://example.com/a.mp4", format: "video_best" }
    })
    expectError(denied, 403, "insufficient_scope")
    expect(denied.body.error.message).toMatch(/media:download/)
    const deniedResolve = await apiRequest(base, "POST", "/media/resolve", {
      key: downloadOnly,
      json: { url: "https://example.com/a.mp4" }
    })
    expectError(deniedResolve, 403, "insufficient_scope")
    expect(deniedResolve.body.error.message).toMatch(/media:resolve/)
    // Routes without a scope need only a valid key.
    const platforms = await apiRequest(base, "GET", "/platforms", { key: resolveOnly })
    expect(platforms.status, describeResponse(platforms)).toBe(200)
    expectError(await apiRequest(base, "GET", `/jobs/${UNKNOWN_JOB_ID}`, { key: downloadOnly }), 404, "job_not_found")
  })
})

describe("URL rules", () => {
  const refusedPlatforms = [
    "https://www.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://m.youtube.com/watch?v=dQw4w9WgXcQ",
    "https://youtu.be/dQw4w9WgXcQ",
    "https://bit.ly/3xyzabc"
  ]

  it.each(refusedPlatforms)("resolve %s -> 422 unsupported_platform", async (url) => {
    expectError(await apiRequest(base, "POST", "/media/resolve", { key, json: { url } }), 422, "unsupported_platform")
  })

  it.each(refusedPlatforms)("download %s -> 422 unsupported_platform", async (url) => {
    const response = await apiRequest(base, "POST", "/media/download", { key, json: { url, format: "video_best" } })
    expectError(response, 422, "unsupported_platform")
  })

  it("an unknown media id -> 404 media_not_found", async () => {
    const response = await apiRequest(base, "POST", "/media/download", {
      key,
      json: { media_id: UNKNOWN_MEDIA_ID, format: "video_best" }
    })
    expectError(response, 404, "media_not_found")
  })

  it("private and loopback addresses are refused with url_not_allowed", async () => {
    const closedPort = await freePort()
    const privateUrls = [
      "http://10.0.0.1/x.mp4",
      "http://192.168.1.10/x.mp4",
      "http://169.254.169.254/latest/meta-data/",
      `http://127.0.0.1:${closedPort}/clip.mp4`,
      `http://2130706433:${closedPort}/clip.mp4`,
      `http://localhost:${closedPort}/clip.mp4`,
      "http://[::1]/x.mp4"
    ]
    for (const url of privateUrls) {
      const resolved = await apiRequest(base, "POST", "/media/resolve", { key, json: { url } })
      expect(resolved.status, `${url}: ${describeResponse(resolved)}`).toBeGreaterThanOrEqual(400)
      expect(resolved.status, `${url}: ${describeResponse(resolved)}`).toBeLessThan(500)
      expect(resolved.body?.error?.code, `${url}: ${describeResponse(resolved)}`).toBe("url_not_allowed")
    }
    const download = await apiRequest(base, "POST", "/media/download", {
      key,
      json: { url: "http://10.0.0.1/x.mp4", format: "video_best" }
    })
    expect(download.body?.error?.code, describeResponse(download)).toBe("url_not_allowed")
    expect(download.status).toBeGreaterThanOrEqual(400)
    expect(download.status).toBeLessThan(500)
  })
})
