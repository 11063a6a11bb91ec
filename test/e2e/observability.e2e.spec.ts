// Observability end to end: /metrics of every service parsed by the reference Prometheus parser, one trace from the
// HTTP request through JetStream to the download worker, and JSON logs with request ids and no credentials.
import { randomBytes } from "node:crypto"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually as waitUntil } from "../support/Eventually.ts"
import { type MediaServer, startMediaServer } from "../support/MediaServer.ts"
import { freePort } from "../support/NatsServer.ts"
import { type OtlpCollector, startOtlpCollector } from "../support/OtlpCollector.ts"
import { family, parsePrometheusText } from "../support/PrometheusText.ts"
import { type ServiceName, startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"

let media: MediaServer
let collector: OtlpCollector
let stack: ServiceStack
let key: string
const metricsPorts: Partial<Record<ServiceName, number>> = {}

beforeAll(async () => {
  media = await startMediaServer()
  collector = await startOtlpCollector()
  for (const name of ["gateway", "aggregator", "extractor"] as const) metricsPorts[name] = await freePort()
  stack = await startServiceStack({
    env: {
      EGRESS_ALLOW: media.hostPort,
      OTEL_EXPORTER_OTLP_ENDPOINT: collector.endpoint,
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      // Per-request log lines are Debug lines (at Info they cost more than a job read: docs/performance.md).
      LOG_LEVEL: "Debug"
    },
    serviceEnv: {
      gateway: { METRICS_PORT: String(metricsPorts.gateway) },
      aggregator: { METRICS_PORT: String(metricsPorts.aggregator) },
      extractor: { METRICS_PORT: String(metricsPorts.extractor) }
    }
  })
  key = (await stack.provisionKey()).key
})

afterAll(async () => {
  await stack?.close()
  await collector?.close()
  await media?.close()
})

const scrape = async (service: ServiceName) => {
  const response = await fetch(`http://127.0.0.1:${metricsPorts[service]}/metrics`)
  expect(response.status).toBe(200)
  expect(response.headers.get("content-type")).toMatch(/^text\/plain/)
  return parsePrometheusText(await response.text())
}

const eventually = <A>(read: () => Promise<A>, done: (a: A) => boolean, what: string): Promise<A> =>
  waitUntil(read, done, () => `${what}\n${stack.logs()}`, 30_000)

const download = async (url: string, headers: Record<string, string> = {}) => {
  const queued = await apiRequest(stack.baseUrl, "POST", "/media/download", { key, json: { url, format: "video_best" }, headers })
  expect(queued.status, describeResponse(queued)).toBe(202)
  const jobId: string = queued.body.data.job_id
  return { jobId, outcome: await pollJobUntilFinished(stack.baseUrl, key, jobId, { logs: stack.logs }) }
}

describe("observability", () => {
  it("one trace from the HTTP request through JetStream to the download worker, continuing the caller's trace", async () => {
    const traceId = randomBytes(16).toString("hex")
    const callerSpan = randomBytes(8).toString("hex")
    const { jobId, outcome } = await download(media.urls.mp4, { traceparent: `00-${traceId}-${callerSpan}-01` })
    expect(outcome.job.status).toBe("completed")
    const spans = await eventually(
      async () => collector.spans.filter((span) => span.traceId === traceId),
      (found) => found.some((s) => s.service === "mds-extractor" && s.name === "DownloadWorker.handle"),
      "the worker's span in the caller's trace"
    )
    const server = spans.find((s) => s.service === "mds-gateway" && s.name === "POST /v1/media/download")
    expect(server, JSON.stringify(spans)).toBeDefined()
    expect(server!.parentSpanId).toBe(callerSpan)
    expect(server!.attributes["http.response.status_code"]).toBe(202)
    const worker = spans.find((s) => s.service === "mds-extractor" && s.name === "DownloadWorker.handle")!
    expect(worker.attributes["mds.job_id"]).toBe(jobId)
    // The worker's parent is a span of the gateway, in the same trace: the context crossed JetStream.
    const gatewaySpanIds = new Set(spans.filter((s) => s.service === "mds-gateway").map((s) => s.spanId))
    expect(gatewaySpanIds.has(worker.parentSpanId), JSON.stringify(spans.map((s) => [s.service, s.name, s.spanId, s.parentSpanId]))).toBe(
      true
    )
  })

  it("metrics: latency by route, jobs by state, queue depth, yt-dlp durations, failures by platform and code, consumer lag", async () => {
    await download(media.urls.notFound)
    const gateway = await scrape("gateway")
    const latency = family(gateway, "mds_http_request_duration_seconds")
    expect(latency.type).toBe("histogram")
    const jobCounts = latency.samples.filter((s) => s.name.endsWith("_count") && s.labels["route"] === "/v1/jobs/:jobId")
    expect(jobCounts.some((s) => s.labels["method"] === "GET" && s.labels["status"] === "200" && s.value >= 1)).toBe(true)
    expect(latency.samples.some((s) => s.labels["route"] === "/v1/media/download" && s.labels["status"] === "202")).toBe(true)

    const extractor = await scrape("extractor")
    const ytdlp = family(extractor, "mds_ytdlp_duration_seconds")
    expect(
      ytdlp.samples.some(
        (s) =>
          s.name === "mds_ytdlp_duration_seconds_count" &&
          s.labels["operation"] === "download" &&
          s.labels["platform"] === "generic" &&
          s.labels["outcome"] === "ok" &&
          s.value >= 1
      )
    ).toBe(true)
    const failures = family(extractor, "mds_extraction_failures")
    expect(failures.type).toBe("counter")
    expect(
      failures.samples.find((s) => s.name === "mds_extraction_failures_total" && s.labels["platform"] === "generic")?.labels["code"]
    ).toMatch(/^(media_unavailable|download_failed)$/)

    const aggregator = await eventually(
      () => scrape("aggregator"),
      (families) => (families.find((f) => f.name === "mds_jobs")?.samples.find((s) => s.labels["state"] === "completed")?.value ?? 0) >= 1,
      "a completed job in mds_jobs"
    )
    const jobs = family(aggregator, "mds_jobs")
    expect(jobs.samples.map((s) => s.labels["state"]).sort()).toEqual(["completed", "failed", "processing", "queued", "scheduled"])
    expect(jobs.samples.find((s) => s.labels["state"] === "failed")?.value).toBeGreaterThanOrEqual(1)
    const depth = family(aggregator, "mds_work_queue_depth")
    expect(depth.samples.map((s) => s.labels["state"]).sort()).toEqual(["in_progress", "waiting"])
    const lag = family(aggregator, "mds_nats_consumer_pending_messages")
    const consumers = lag.samples.map((s) => `${s.labels["stream"]}/${s.labels["consumer"]}`)
    expect(consumers).toEqual(
      expect.arrayContaining([
        "MDS_JOBS/aggregator-jobs",
        "MDS_MEDIA/aggregator-media",
        "MDS_WORK/extractor",
        "MDS_JOBS/aggregator-webhooks"
      ])
    )
    for (const sample of lag.samples) expect(sample.value).toBeGreaterThanOrEqual(0)
  })

  it("logs are JSON lines carrying the request id, and never a credential", async () => {
    const response = await apiRequest(stack.baseUrl, "GET", "/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa", { key })
    expect(response.status).toBe(404)
    const requestId = response.headers.get("x-request-id")!
    // The request line is written once the answer has gone out.
    const lines = await eventually(
      async () =>
        stack
          .logs()
          .split("\n")
          .filter((line) => line.startsWith("{") && line.includes(requestId)),
      (found) => found.length > 0,
      `a log line with ${requestId}`
    )
    const entry = JSON.parse(lines[0]!)
    expect(entry.annotations).toMatchObject({ request_id: requestId, status: 404, path: "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa" })
    expect(stack.logs()).not.toContain(key)
    expect(stack.logs()).not.toMatch(/svc_(live|test)_[0-9A-Za-z]{40}/)
  })
})
