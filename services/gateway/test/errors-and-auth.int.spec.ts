// The /v1 error envelope, request ids, authentication, scopes, health and the platform catalog, on a real nats-server.
import type { LightMyRequestResponse } from "fastify"
import { describe, expect, it } from "vitest"
import { runAdminCommand } from "../src/cli/runAdminCommand.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { useHarness } from "./GatewayHarness.ts"

const file = useHarness({ key: true })

/** Asserts the error envelope, its code and that request_id equals the X-Request-Id header. */
const expectError = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status)
  const body = response.json()
  expect(body.error.code).toBe(code)
  expect(typeof body.error.message).toBe("string")
  expect(body.error.message.length).toBeGreaterThan(0)
  expect(body.error.request_id).toMatch(/^req_[0-9a-f]{24}$/)
  expect(body.error.request_id).toBe(response.headers["x-request-id"])
  return body.error as { code: string; message: string; request_id: string }
}

const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  file.h.gateway.app.inject({
    method: "POST",
    url,
    payload,
    headers: { "content-type": "application/json", "x-api-key": file.key, ...headers }
  })

describe("error envelope", () => {
  it("unknown route -> 404 not_found", async () => {
    expectError(await file.h.gateway.app.inject({ method: "GET", url: "/v1/nope" }), 404, "not_found")
  })

  it("wrong method on a known route -> 405 with an Allow header", async () => {
    const response = await file.h.gateway.app.inject({ method: "PUT", url: "/v1/jobs/job_x" })
    expectError(response, 405, "method_not_allowed")
    expect(response.headers["allow"]).toBe("GET, HEAD, DELETE")
    const onPost = await file.h.gateway.app.inject({ method: "GET", url: "/v1/media/resolve" })
    expectError(onPost, 405, "method_not_allowed")
    expect(onPost.headers["allow"]).toBe("POST")
  })

  it("a static path is its own resource: /v1/jobs/events allows what it serves, not what /v1/jobs/:jobId does", async () => {
    for (const method of ["OPTIONS", "DELETE"] as const) {
      const response = await file.h.gateway.app.inject({ method, url: "/v1/jobs/events", headers: { "x-api-key": file.key } })
      expectError(response, 405, "method_not_allowed")
      expect(response.headers["allow"]).toBe("GET, HEAD")
    }
  })

  it("malformed JSON -> 400 invalid_json", async () => {
    expectError(await post("/v1/media/resolve", '{"url": '), 400, "invalid_json")
  })

  it("oversize body -> 413 payload_too_large", async () => {
    expectError(
      await post("/v1/media/resolve", JSON.stringify({ url: "https://vimeo.com/1", pad: "x".repeat(20_000) })),
      413,
      "payload_too_large"
    )
  })

  it("wrong content type -> 415 unsupported_media_type", async () => {
    expectError(await post("/v1/media/resolve", "url=x", { "content-type": "text/plain" }), 415, "unsupported_media_type")
    expectError(
      await post("/v1/media/resolve", "url=x", { "content-type": "application/x-www-form-urlencoded" }),
      415,
      "unsupported_media_type"
    )
  })

  it("validation failure -> 400 invalid_request naming the field", async () => {
    const missing = expectError(await post("/v1/media/resolve", "{}"), 400, "invalid_request")
    expect(missing.message).toContain("url")
    const wrongType = expectError(
      await post("/v1/media/download", JSON.stringify({ url: "https://vimeo.com/1", format: 7 })),
      400,
      "invalid_request"
    )
    expect(wrongType.message).toContain("format")
    const tooLong = expectError(
      await post("/v1/media/resolve", JSON.stringify({ url: `https://vimeo.com/${"a".repeat(2100)}` })),
      400,
      "invalid_request"
    )
    expect(tooLong.message).toContain("url")
    const notHttp = expectError(await post("/v1/media/resolve", JSON.stringify({ url: "ftp://vimeo.com/1" })), 400, "invalid_request")
    expect(notHttp.message).toContain("url")
  })

  it("every success also carries a request id, and each request gets its own", async () => {
    const a = await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })
    const b = await file.h.gateway.app.inject({ method: "GET", url: "/v1/health" })
    expect(a.headers["x-request-id"]).toMatch(/^req_/)
    expect(a.headers["x-request-id"]).not.toBe(b.headers["x-request-id"])
  })
})

describe("authentication", () => {
  const getJob = (headers: Record<string, string>, query = "") =>
    file.h.gateway.app.inject({ method: "GET", url: `/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa${query}`, headers })

  it("accepts X-API-Key and Authorization: Bearer alike", async () => {
    expectError(await getJob({ "x-api-key": file.key }), 404, "job_not_found")
    expectError(await getJob({ authorization: `Bearer ${file.key}` }), 404, "job_not_found")
  })

  it("missing key -> 401 missing_api_key", async () => {
    expectError(await getJob({}), 401, "missing_api_key")
  })

  it("unknown or malformed key -> 401 invalid_api_key", async () => {
    expectError(await getJob({ "x-api-key": "svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" }), 401, "invalid_api_key")
    expectError(await getJob({ "x-api-key": "hello" }), 401, "invalid_api_key")
    expectError(await getJob({ authorization: `Basic ${file.key}` }), 401, "invalid_api_key")
  })

  it("never accepts a key in the query string", async () => {
    for (const name of ["api_key", "key", "apiKey", "x-api-key", "access_token"]) {
      const message = expectError(await getJob({}, `?${name}=${file.key}`), 401, "missing_api_key").message
      expect(message).toContain("query string")
    }
  })

  it("revoked key -> 401 revoked_api_key", async () => {
    const revocable = (await file.h.provisionKey()).key
    expectError(await getJob({ "x-api-key": revocable }), 404, "job_not_found")
    await file.h.gateway.run(runAdminCommand({ _tag: "RevokeKey", key: revocable }))
    // The directory follows revocations through its consumer.
    const response = await eventually(
      () => getJob({ "x-api-key": revocable }),
      (r) => r.statusCode === 401,
      "the revoked key refused"
    )
    expectError(response, 401, "revoked_api_key")
  })

  it("missing scope -> 403 insufficient_scope naming the scope", async () => {
    const resolveOnly = (await file.h.provisionKey({ scopes: ["media:resolve"] })).key
    const downloadOnly = (await file.h.provisionKey({ scopes: ["media:download"] })).key
    const refusedDownload = expectError(
      await post("/v1/media/download", JSON.stringify({ url: "https://vimeo.com/1", format: "video_best" }), { "x-api-key": resolveOnly }),
      403,
      "insufficient_scope"
    )
    expect(refusedDownload.message).toContain("media:download")
    const refusedResolve = expectError(
      await post("/v1/media/resolve", JSON.stringify({ url: "https://vimeo.com/1" }), { "x-api-key": downloadOnly }),
      403,
      "insufficient_scope"
    )
    expect(refusedResolve.message).toContain("media:resolve")
    // Routes without a scope need only a valid key.
    expect(
      (await file.h.gateway.app.inject({ method: "GET", url: "/v1/webhooks/deliveries", headers: { "x-api-key": resolveOnly } })).statusCode
    ).toBe(200)
    expectError(await getJob({ "x-api-key": downloadOnly }), 404, "job_not_found")
  })
})

describe("health and platforms", () => {
  it("GET /health needs no key, and names the stream followers, all delivering once started", async () => {
    const response = await eventually(
      () => file.h.gateway.app.inject({ method: "GET", url: "/v1/health" }),
      (r) => Object.values(r.json().data.followers ?? {}).every((state) => state === "following"),
      "every follower delivering"
    )
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({
      data: {
        status: "ok",
        version: "v1",
        followers: { job_views: "following", keys: "following", platforms: "following" },
        // No extractor runs beside this gateway: no release chosen, none reported.
        yt_dlp: { choice: null, extractors: [] },
        // No consumer parked anything.
        parked_messages: {}
      }
    })
  })

  it("GET /platforms: 503 before any catalog, then the catalog's platforms with the cache header", async () => {
    const headers = { "x-api-key": file.key }
    expectError(await file.h.gateway.app.inject({ method: "GET", url: "/v1/platforms", headers }), 503, "service_unavailable")
    expectError(await file.h.gateway.app.inject({ method: "GET", url: "/v1/platforms" }), 401, "missing_api_key")
    await file.h.publishCatalog(["Vimeo", "SoundCloud", "Youtube"], "catalog-1")
    const response = await file.h.gateway.app.inject({ method: "GET", url: "/v1/platforms", headers })
    expect(response.statusCode, response.body).toBe(200)
    expect(response.headers["cache-control"]).toBe("public, max-age=300")
    const ids = response.json().data.map((p: { id: string }) => p.id)
    expect(ids).toEqual(["vimeo", "soundcloud", "generic"])
    expect(response.json().data[0]).toEqual({
      id: "vimeo",
      name: "Vimeo",
      capabilities: ["video", "audio", "metadata"],
      source: "yt-dlp",
      live: true,
      cookies: true,
      // Extension (platform health): nothing recorded yet.
      health: { status: "ok", success_rate: null, sample_size: 0, paused_until: null }
    })
  })
})
