// The client against a real HTTP server: Retry-After honoured, idempotency keys reused across retries, errors typed, and
// the requests the extension calls send and the answers they decode.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { MdsApiError, MdsConnectionError, MdsProtocolError } from "../src/MdsApiError.ts"
import { MdsClient } from "../src/MdsClient.ts"

type Handler = (request: IncomingMessage, body: string, response: ServerResponse) => void

let server: Server | null = null

const serve = async (handler: Handler) => {
  const listening = createServer((request, response) => {
    let body = ""
    request.on("data", (chunk) => (body += chunk))
    request.on("end", () => handler(request, body, response))
  })
  server = listening
  await new Promise<void>((resolve) => listening.listen(0, "127.0.0.1", resolve))
  return `http://127.0.0.1:${(listening.address() as AddressInfo).port}`
}

const stop = async () => {
  // fetch keeps connections alive; close() alone would wait for them.
  server?.closeAllConnections()
  await new Promise((resolve) => (server === null ? resolve(undefined) : server.close(resolve)))
  server = null
}

afterEach(async () => {
  await stop()
  server = null
})

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  response.writeHead(status, { "content-type": "application/json", ...headers })
  response.end(JSON.stringify(body))
}

const error = (code: string) => ({ error: { code, message: `m ${code}`, request_id: "req_0123456789abcdef01234567" } })

const JOB = {
  id: "job_aaaaaaaaaaaaaaaaaaaaaaaa",
  status: "queued",
  progress: 0,
  platform: "generic",
  requested_format: "video_best",
  created_at: "2026-01-02T03:04:05.000Z"
}

const clientFor = (baseUrl: string, sleeps: Array<number>) =>
  new MdsClient({ baseUrl, apiKey: "svc_test_x", sleep: async (ms) => void sleeps.push(ms), random: () => 0.5 })

describe("MdsClient", () => {
  it("waits what Retry-After says on 429/503, then succeeds, sending the same Idempotency-Key every time", async () => {
    const seen: Array<{ key: string | undefined; apiKey: string | undefined; body: string }> = []
    const base = await serve((request, body, response) => {
      seen.push({ key: request.headers["idempotency-key"] as string, apiKey: request.headers["x-api-key"] as string, body })
      if (seen.length === 1) return json(response, 429, error("concurrency_limit_exceeded"), { "retry-after": "3" })
      if (seen.length === 2) return json(response, 503, error("service_unavailable"), { "retry-after": "1" })
      json(response, 202, { data: { job_id: JOB.id, status: "queued" } })
    })
    const sleeps: Array<number> = []
    const accepted = await clientFor(`${base}/v1`, sleeps).download({ url: "https://example.com/a.mp4" }, "video_best")
    expect(accepted).toEqual({ job_id: JOB.id, status: "queued" })
    expect(sleeps).toEqual([3000, 1000])
    expect(seen).toHaveLength(3)
    expect(new Set(seen.map((s) => s.key)).size).toBe(1)
    expect(seen[0]?.key).toMatch(/^[0-9a-f-]{36}$/)
    expect(seen.every((s) => s.apiKey === "svc_test_x")).toBe(true)
    expect(JSON.parse(seen[0]?.body ?? "")).toEqual({ url: "https://example.com/a.mp4", format: "video_best" })
  })

  it("gives up after the policy's retries and reports the last error with its code and request id", async () => {
    let calls = 0
    const base = await serve((_request, _body, response) => {
      calls++
      json(response, 503, error("service_unavailable"))
    })
    const sleeps: Array<number> = []
    const client = new MdsClient({
      baseUrl: base,
      apiKey: "k",
      retry: { maxRetries: 2 },
      sleep: async (ms) => void sleeps.push(ms),
      random: () => 0
    })
    const failure = await client.platforms().catch((e) => e)
    expect(failure).toBeInstanceOf(MdsApiError)
    expect(failure).toMatchObject({ status: 503, code: "service_unavailable", requestId: "req_0123456789abcdef01234567" })
    expect(calls).toBe(3)
    expect(sleeps).toEqual([250, 500])
  })

  it("does not retry client errors, and reads unknown error codes as codes", async () => {
    let calls = 0
    const base = await serve((_request, _body, response) => {
      calls++
      json(response, 418, error("some_future_code"))
    })
    const failure = await clientFor(base, [])
      .job("job_x")
      .catch((e) => e)
    expect(failure).toBeInstanceOf(MdsApiError)
    expect(failure.code).toBe("some_future_code")
    expect(calls).toBe(1)
  })

  it("decodes answers with the API schema: a wrong shape is a protocol error, not a typed value", async () => {
    const base = await serve((_request, _body, response) => json(response, 200, { data: { ...JOB, progress: "half" } }))
    expect(
      await clientFor(base, [])
        .job(JOB.id)
        .catch((e) => e)
    ).toBeInstanceOf(MdsProtocolError)
  })

  it("retries a refused connection for reads, then reports it", async () => {
    const base = await serve(() => undefined)
    await stop()
    const sleeps: Array<number> = []
    const client = new MdsClient({ baseUrl: base, apiKey: "k", retry: { maxRetries: 1 }, sleep: async (ms) => void sleeps.push(ms) })
    expect(await client.platforms().catch((e) => e)).toBeInstanceOf(MdsConnectionError)
    expect(sleeps).toHaveLength(1)
  })

  it("waitForJob polls until the job ends and reports each state", async () => {
    const states = [
      { ...JOB },
      { ...JOB, status: "processing", progress: 40, started_at: "2026-01-02T03:04:06.000Z" },
      { ...JOB, status: "failed", progress: 40, completed_at: "2026-01-02T03:04:09.000Z", error: { code: "download_failed", message: "x" } }
    ]
    let polls = 0
    const base = await serve((_request, _body, response) => json(response, 200, { data: states[Math.min(polls++, 2)] }))
    const updates: Array<string> = []
    const started = Date.now()
    const job = await clientFor(base, []).waitForJob(JOB.id, { onUpdate: (j) => updates.push(`${j.status}:${j.progress}`) })
    expect(job.status).toBe("failed")
    expect(updates).toEqual(["queued:0", "processing:40", "failed:40"])
    // Two waits of the 2 s rule: the client never polls faster.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3900)
  }, 15_000)

  it("cancel sends DELETE /v1/jobs/{id} and decodes the job; download sends the extension fields beside format", async () => {
    const seen: Array<{ method: string | undefined; url: string | undefined; body: string }> = []
    const base = await serve((request, body, response) => {
      seen.push({ method: request.method, url: request.url, body })
      if (request.method === "DELETE") {
        return json(response, 200, { data: { ...JOB, status: "failed", error: { code: "canceled", message: "m", retryable: true } } })
      }
      json(response, 202, { data: { job_id: JOB.id, status: "queued" } })
    })
    const client = clientFor(base, [])
    const job = await client.cancel(JOB.id)
    expect(job.error?.code).toBe("canceled")
    await client.download({ mediaId: "med_x" }, "video_best", { extensions: { section: { start: 30, end: 45 }, video_codec: "h264" } })
    expect(seen.map((s) => `${s.method} ${s.url}`)).toEqual([`DELETE /v1/jobs/${JOB.id}`, "POST /v1/media/download"])
    expect(JSON.parse(seen[1]?.body ?? "")).toEqual({
      section: { start: 30, end: 45 },
      video_codec: "h264",
      media_id: "med_x",
      format: "video_best"
    })
  })
})

const COUNTS = { total: 2, queued: 0, processing: 0, completed: 1, failed: 1, expired: 0, canceled: 0 }
const USAGE = {
  from: "2026-11-20",
  to: "2026-11-20",
  days: [
    {
      date: "2026-11-20",
      jobs: COUNTS,
      errors: { download_failed: 1 },
      bytes_downloaded: 2048,
      platforms: [{ platform: "vimeo", jobs: COUNTS, bytes_downloaded: 2048 }]
    }
  ],
  totals: { jobs: COUNTS, bytes_downloaded: 2048 },
  top_errors: [{ code: "download_failed", count: 1, example_job_ids: [JOB.id] }],
  quotas: [{ name: "jobs_per_day", limit: 10, used: 2, remaining: 8, resets_at: "2026-11-21T00:00:00.000Z" }]
}
const DELIVERY = {
  delivery_id: "dlv_0123456789abcdef01234567",
  event: "job.failed",
  job_id: JOB.id,
  subscription_id: null,
  url: "https://hooks.example.org/mds",
  attempt: 6,
  outcome: "failed",
  status_code: 500,
  error: "HTTP 500",
  duration_ms: 41,
  at: "2026-11-20T10:00:00.000Z",
  next_attempt_at: null
}

describe("MdsClient extensions: usage and webhook deliveries", () => {
  it("usage sends the range as query parameters (none when not given) and decodes the report", async () => {
    const seen: Array<string | undefined> = []
    const base = await serve((request, _body, response) => {
      seen.push(request.url)
      json(response, 200, { data: USAGE })
    })
    const client = clientFor(base, [])
    expect(await client.usage({ from: "2026-11-20", to: "2026-11-20" })).toEqual(USAGE)
    await client.usage({ to: "2026-11-20" })
    await client.usage()
    expect(seen).toEqual(["/v1/usage?from=2026-11-20&to=2026-11-20", "/v1/usage?to=2026-11-20", "/v1/usage"])
  })

  it("webhookDeliveries reads the log, with a limit when given; a wrong shape is a protocol error", async () => {
    const seen: Array<string | undefined> = []
    const base = await serve((request, _body, response) => {
      seen.push(request.url)
      json(response, 200, { data: request.url?.includes("limit") ? [{ ...DELIVERY, outcome: "lost" }] : [DELIVERY] })
    })
    const client = clientFor(base, [])
    expect(await client.webhookDeliveries()).toEqual([DELIVERY])
    expect(await client.webhookDeliveries({ limit: 5 }).catch((e) => e)).toBeInstanceOf(MdsProtocolError)
    expect(seen).toEqual(["/v1/webhooks/deliveries", "/v1/webhooks/deliveries?limit=5"])
  })

  it("redeliverWebhook POSTs without a body to the delivery's path (encoded) and reads 202; a refusal is typed", async () => {
    const seen: Array<{ method: string | undefined; url: string | undefined; type: string | undefined; body: string }> = []
    const base = await serve((request, body, response) => {
      seen.push({ method: request.method, url: request.url, type: request.headers["content-type"], body })
      if (request.url?.includes("pending")) return json(response, 409, error("delivery_pending"))
      json(response, 202, { data: { delivery_id: DELIVERY.delivery_id, event: "job.failed", job_id: JOB.id } })
    })
    const client = clientFor(base, [])
    expect(await client.redeliverWebhook(DELIVERY.delivery_id)).toEqual({
      delivery_id: DELIVERY.delivery_id,
      event: "job.failed",
      job_id: JOB.id
    })
    const refused = await client.redeliverWebhook("pending/../x").catch((e) => e)
    expect(refused).toBeInstanceOf(MdsApiError)
    expect(refused).toMatchObject({ status: 409, code: "delivery_pending" })
    expect(seen).toEqual([
      { method: "POST", url: `/v1/webhooks/deliveries/${DELIVERY.delivery_id}/redeliver`, type: undefined, body: "" },
      { method: "POST", url: "/v1/webhooks/deliveries/pending%2F..%2Fx/redeliver", type: undefined, body: "" }
    ])
  })
})
