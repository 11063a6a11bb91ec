// End to end: the /v1 contract around the edges that need the whole stack: health, platforms and URL refusals.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { freePort } from "../support/NatsServer.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { type ApiResponse, apiRequest, describeResponse } from "./ApiClient.ts"

const ALLOWED_CAPABILITIES = new Set(["video", "audio", "image", "metadata"])
const UNKNOWN_MEDIA_ID = "med_aaaaaaaaaaaaaaaaaaaaaaaa"

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
    expect(Object.keys((response.body as { data: { followers: object } }).data.followers).sort()).toEqual([
      "job_views",
      "keys",
      "platforms"
    ])
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
      expect(typeof platform.live, platform.id).toBe("boolean")
    }
    // The generic extractor reads a live HLS or DASH manifest: live is its own field, never a capability value.
    expect(platforms.find((p) => p.id === "generic")?.live).toBe(true)
    expect(new Set(platforms.map((p) => p.id)).size).toBe(platforms.length)
  })
})

// The error envelope and authentication (every code, each key header, query-string keys, revocation, scopes, the
// CLI's refusals) are covered once, against a real gateway and nats-server, by services/gateway/test/
// errors-and-auth.int.spec.ts, bad-input.int.spec.ts and cli.int.spec.ts; this file keeps what needs the whole stack.

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
