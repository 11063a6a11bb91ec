// Bad input for every endpoint: malformed bodies, hostile URLs, odd ids and paths, broken headers. Every answer is a
// documented 4xx with the error envelope (never a 5xx, never a hang), and matches the OpenAPI document.
import { type AddressInfo, connect } from "node:net"
import type { LightMyRequestResponse } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type OpenApiConformance, openApiConformance } from "../../../test/support/OpenApiConformance.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let key: string
let conformance: OpenApiConformance

beforeAll(async () => {
  h = await startHarness()
  key = (await h.provisionKey()).key
  conformance = openApiConformance((await h.gateway.app.inject({ method: "GET", url: "/v1/openapi.json" })).json())
})
afterAll(async () => {
  await h?.close()
})

type Case = readonly [label: string, payload: string, expected: string]

/** Checks a refusal: the status and code expected, the envelope, and the document's description of that answer. */
const expectRefused = (response: LightMyRequestResponse, method: string, path: string, code: string) => {
  const context = `${method} ${path} -> ${response.statusCode} ${response.body.slice(0, 300)}`
  expect(response.statusCode, context).toBeGreaterThanOrEqual(400)
  expect(response.statusCode, context).toBeLessThan(500)
  const body = response.json()
  expect(body.error.code, context).toBe(code)
  expect(body.error.request_id).toBe(response.headers["x-request-id"])
  expect(body.error.retryable, context).toBe(code === "concurrency_limit_exceeded")
  expect(conformance.problems({ method, path, status: response.statusCode, body }), context).toEqual([])
}

const post = (url: string, payload: string, headers: Record<string, string> = {}) =>
  h.gateway.app.inject({ method: "POST", url, payload, headers: { "content-type": "application/json", "x-api-key": key, ...headers } })

const deep = (depth: number) => `${'{"a":'.repeat(depth)}1${"}".repeat(depth)}`

/** Bodies no endpoint may accept, with the code each gets; the same for resolve and download. */
const BODIES: ReadonlyArray<Case> = [
  ["an empty body", "", "invalid_json"],
  ["truncated JSON", '{"url": "https://vimeo.com/1"', "invalid_json"],
  ["a bare string", '"https://vimeo.com/1"', "invalid_request"],
  ["a number", "42", "invalid_request"],
  ["null", "null", "invalid_request"],
  ["an array", '[{"url": "https://vimeo.com/1"}]', "invalid_request"],
  ["deep nesting", deep(2_000), "invalid_request"],
  ["NaN and comments", '{"url": NaN} // x', "invalid_json"]
]

describe("POST /media/resolve and /media/download reject malformed bodies", () => {
  for (const path of ["/v1/media/resolve", "/v1/media/download"]) {
    it.each(BODIES)(`${path}: %s`, async (_label, payload, code) => {
      expectRefused(await post(path, payload), "POST", path, code)
    })
  }
})

const HOSTILE_URLS: ReadonlyArray<readonly [string, unknown, string]> = [
  ["missing", undefined, "invalid_request"],
  ["null", null, "invalid_request"],
  ["a number", 7, "invalid_request"],
  ["an object", { href: "https://vimeo.com/1" }, "invalid_request"],
  ["empty", "", "invalid_request"],
  ["one character over 2048", `https://vimeo.com/${"a".repeat(2048 - 17)}`, "invalid_request"],
  ["not a URL", "vimeo dot com slash one", "invalid_request"],
  ["relative", "/videos/1", "invalid_request"],
  ["javascript:", "javascript:alert(1)", "invalid_request"],
  ["file:", "file:///etc/passwd", "invalid_request"],
  ["data:", "data:video/mp4;base64,AAAA", "invalid_request"],
  ["gopher:", "gopher://127.0.0.1:25/", "invalid_request"],
  ["with credentials", "https://user:pass@vimeo.com/1", "url_not_allowed"],
  ["with credentials and a private host", "http://user:pass@127.0.0.1/a.mp4", "url_not_allowed"],
  ["an unclosed IPv6 host", "http://[::1/", "invalid_request"],
  ["loopback", "http://127.0.0.1/a.mp4", "url_not_allowed"],
  ["loopback in decimal", "http://2130706433/a.mp4", "url_not_allowed"],
  ["loopback in hex", "http://0x7f.1/a.mp4", "url_not_allowed"],
  ["IPv4-mapped IPv6", "http://[::ffff:a9fe:a9fe]/latest/meta-data/", "url_not_allowed"],
  ["IPv4-mapped IPv6 with a dotted tail", "http://[::ffff:127.0.0.1]/a.mp4", "url_not_allowed"],
  ["a full-width (IDN) spelling of loopback", "http://\uff11\uff12\uff17.\uff10.\uff10.\uff11/a.mp4", "url_not_allowed"],
  ["a full-width spelling of localhost", "http://\uff4c\uff4f\uff43\uff41\uff4c\uff48\uff4f\uff53\uff54/a.mp4", "url_not_allowed"],
  ["a tab in the host", "http://127.0.\t0.1/a.mp4", "url_not_allowed"],
  // Schema-valid (the documented pattern), but no WHATWG parser reads the host: nothing the guard can vouch for.
  ["a control character in the host", "https://\t\u010b\u00ed\u0001\t?/x", "url_not_allowed"],
  ["a backslash after the host", "http://169.254.169.254\\latest\\meta-data", "url_not_allowed"],
  ["localhost", "http://localhost:8080/", "url_not_allowed"],
  ["a name that resolves privately", "https://media.internal/clip.mp4", "url_not_allowed"],
  ["a shortened link", "https://bit.ly/abc", "unsupported_platform"],
  ["YouTube", "https://www.youtube.com/watch?v=dQw4w9WgXcQ", "unsupported_platform"]
]

describe("hostile URLs", () => {
  it.each(HOSTILE_URLS)("POST /media/resolve with a URL that is %s", async (_label, url, code) => {
    expectRefused(await post("/v1/media/resolve", JSON.stringify(url === undefined ? {} : { url })), "POST", "/v1/media/resolve", code)
  })

  it.each(HOSTILE_URLS)("POST /media/download with a URL that is %s", async (_label, url, code) => {
    const body = url === undefined ? { format: "video_best" } : { url, format: "video_best" }
    // Without a URL the request lacks both sources: invalid_request as well.
    expectRefused(await post("/v1/media/download", JSON.stringify(body)), "POST", "/v1/media/download", code)
  })
})

describe("POST /media/download: field combinations and ids", () => {
  it.each<readonly [string, unknown, string]>([
    ["neither media_id nor url", { format: "video_best" }, "invalid_request"],
    [
      "both media_id and url",
      { format: "video_best", media_id: "med_aaaaaaaaaaaaaaaaaaaaaaaa", url: "https://vimeo.com/1" },
      "invalid_request"
    ],
    ["no format", { url: "https://vimeo.com/1" }, "invalid_request"],
    ["an empty format", { url: "https://vimeo.com/1", format: "" }, "invalid_request"],
    ["a format that is a number", { url: "https://vimeo.com/1", format: 720 }, "invalid_request"],
    ["a media_id that is null", { media_id: null, format: "video_best" }, "invalid_request"],
    ["an unknown format id", { url: "https://vimeo.com/1", format: "video_4k" }, "format_unavailable"],
    ["a format with an absurd height", { url: "https://vimeo.com/1", format: "video_99999999999999999999p" }, "format_unavailable"],
    ["a malformed media id", { media_id: "med_../../etc/passwd", format: "video_best" }, "media_not_found"],
    ["a media id with subject wildcards", { media_id: "med_>", format: "video_best" }, "media_not_found"],
    ["an unknown media id", { media_id: "med_aaaaaaaaaaaaaaaaaaaaaaaa", format: "video_best" }, "media_not_found"]
  ])("%s", async (_label, body, code) => {
    expectRefused(await post("/v1/media/download", JSON.stringify(body)), "POST", "/v1/media/download", code)
  })
})

describe("request framing", () => {
  it.each([
    ["text/plain", "unsupported_media_type"],
    ["application/x-www-form-urlencoded", "unsupported_media_type"],
    ["multipart/form-data; boundary=x", "unsupported_media_type"],
    ["application/jsonx", "unsupported_media_type"]
  ])("Content-Type %s", async (contentType, code) => {
    expectRefused(
      await post("/v1/media/resolve", '{"url":"https://vimeo.com/1"}', { "content-type": contentType }),
      "POST",
      "/v1/media/resolve",
      code
    )
  })

  it("a body over 16 KiB, however it is padded", async () => {
    const padded = JSON.stringify({ url: "https://vimeo.com/1", pad: " ".repeat(17_000) })
    expectRefused(await post("/v1/media/resolve", padded), "POST", "/v1/media/resolve", "payload_too_large")
  })

  it.each([
    ["an oversized key header", { "x-api-key": `svc_live_${"A".repeat(8_000)}` }, "invalid_api_key"],
    ["a key with a control character", { "x-api-key": "svc_live_\u0001abc" }, "invalid_api_key"],
    ["an empty Bearer token", { "x-api-key": "", authorization: "Bearer " }, "invalid_api_key"],
    ["Basic credentials", { "x-api-key": "", authorization: "Basic dXNlcjpwYXNz" }, "invalid_api_key"]
  ])("%s", async (_label, headers, code) => {
    const response = await h.gateway.app.inject({ method: "GET", url: "/v1/platforms", headers: headers as Record<string, string> })
    expectRefused(response, "GET", "/v1/platforms", code)
  })
})

describe("GET /jobs/{jobId} with odd ids", () => {
  it.each([
    "not-a-job",
    "job_",
    "job_AAAAAAAAAAAAAAAAAAAAAAAA",
    "job_aaaaaaaaaaaaaaaaaaaaaaaa.x",
    "job_*",
    "job_%3E",
    "job_%00aaaaaaaaaaaaaaaaaaaaaaa",
    "%2e%2e%2fadmission",
    `job_${"a".repeat(5_000)}`,
    "job_ａａａａａａａａａａａａａａａａａａａａａａａａ"
  ])("%s -> 404 job_not_found", async (id) => {
    const response = await h.gateway.app.inject({ method: "GET", url: `/v1/jobs/${id}`, headers: { "x-api-key": key } })
    expectRefused(response, "GET", "/v1/jobs/{jobId}", "job_not_found")
  })

  it.each(["%E0%A4%A", "%", "job_%zz"])("a malformed percent-encoding (%s) -> 404 not_found with the envelope", async (id) => {
    const response = await h.gateway.app.inject({ method: "GET", url: `/v1/jobs/${id}`, headers: { "x-api-key": key } })
    expectRefused(response, "GET", "/v1/jobs/{jobId}", "not_found")
  })
})

describe("GET /jobs/events with bad filters", () => {
  it.each<readonly [string, string, Record<string, string>, string]>([
    ["an unknown status", "?status=canceled", {}, "status:"],
    ["a status twice", "?status=queued&status=failed", {}, "status:"],
    ["a platform id with capitals", "?platform=Vimeo", {}, "platform:"],
    ["a platform id with a wildcard", "?platform=%3E", {}, "platform:"],
    ["an unknown error code", "?error_code=boom", {}, "error_code:"],
    ["a Last-Event-ID that is no event id", "", { "last-event-id": "abc" }, "Last-Event-ID:"],
    ["a negative Last-Event-ID", "", { "last-event-id": "-1" }, "Last-Event-ID:"]
  ])("%s -> 400 invalid_request naming it, before any stream", async (_label, query, headers, named) => {
    const response = await h.gateway.app.inject({
      method: "GET",
      url: `/v1/jobs/events${query}`,
      headers: { "x-api-key": key, ...headers }
    })
    expectRefused(response, "GET", "/v1/jobs/events", "invalid_request")
    expect(response.json().error.message).toContain(named)
  })
})

describe("GET /files/{key} with forged links", () => {
  it.each([
    ["no signature", "jobs/prj_x/job_x/a.mp4", "invalid_signature"],
    ["a made-up signature", "jobs/prj_x/job_x/a.mp4?expires=9999999999&signature=AAAA", "invalid_signature"],
    ["a negative expiry", "jobs/prj_x/job_x/a.mp4?expires=-1&signature=AAAA", "invalid_signature"],
    ["a path climbing out", "..%2f..%2fsecrets.env?expires=9999999999&signature=AAAA", "invalid_signature"],
    ["an encoded NUL", "jobs/a%00.mp4?expires=9999999999&signature=AAAA", "invalid_signature"],
    ["repeated parameters", "jobs/a.mp4?expires=1&expires=2&signature=a&signature=b", "invalid_signature"]
  ])("%s", async (_label, rest, code) => {
    expectRefused(await h.gateway.app.inject({ method: "GET", url: `/v1/files/${rest}` }), "GET", "/v1/files/{key}", code)
  })
})

describe("GET /health, /platforms and /openapi.json ignore what they do not read", () => {
  it("query strings and bodies do not change the answer", async () => {
    const health = await h.gateway.app.inject({ method: "GET", url: "/v1/health?verbose=1&x[]=y", payload: "junk" })
    expect(health.statusCode).toBe(200)
    const platforms = await h.gateway.app.inject({ method: "GET", url: "/v1/platforms?api_key=x", headers: { "x-api-key": key } })
    // No extractor has published a catalog in this harness: a documented 503, not a crash.
    expect(platforms.statusCode).toBe(503)
    expect(conformance.problems({ method: "GET", path: "/v1/platforms", status: 503, body: platforms.json() })).toEqual([])
    const document = await h.gateway.app.inject({ method: "GET", url: "/v1/openapi.json?format=yaml" })
    expect(document.statusCode).toBe(200)
  })
})

describe("what node's HTTP parser refuses", () => {
  /** Sends raw bytes to the listening gateway; the whole answer (it closes the connection). */
  const raw = async (request: string) => {
    const address = await h.gateway.app.listen({ port: 0, host: "127.0.0.1" }).catch(() => null)
    const { port } = h.gateway.app.server.address() as AddressInfo
    expect(address === null || address.includes(String(port))).toBe(true)
    return new Promise<string>((resolve, reject) => {
      const socket = connect(port, "127.0.0.1", () => socket.write(request))
      let answer = ""
      socket.on("data", (chunk: Buffer) => (answer += chunk.toString()))
      socket.on("end", () => resolve(answer))
      socket.on("error", reject)
    })
  }
  const parse = (answer: string) => {
    const [head = "", body = ""] = answer.split("\r\n\r\n")
    const status = Number(head.split(" ")[1])
    const requestId = /x-request-id: (\S+)/i.exec(head)?.[1]
    return { status, requestId, body: JSON.parse(body) }
  }

  it("oversized headers: 431 headers_too_large in the envelope, as the document says for every path", async () => {
    const answer = parse(await raw(`GET /v1/jobs/job_x HTTP/1.1\r\nhost: a\r\nx-pad: ${"a".repeat(20_000)}\r\n\r\n`))
    expect(answer.status).toBe(431)
    expect(answer.body.error.code).toBe("headers_too_large")
    expect(answer.body.error.request_id).toBe(answer.requestId)
    expect(answer.body.error.retryable).toBe(false)
    expect(conformance.problems({ method: "GET", path: "/v1/jobs/{jobId}", status: 431, body: answer.body })).toEqual([])
  })

  it("a request that is not HTTP: 400 invalid_request in the envelope", async () => {
    const answer = parse(await raw("NOT HTTP AT ALL\r\n\r\n"))
    expect(answer.status).toBe(400)
    expect(answer.body.error.code).toBe("invalid_request")
    expect(answer.body.error.request_id).toBe(answer.requestId)
  })
})
