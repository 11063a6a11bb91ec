// End to end: services stop cleanly on SIGTERM, and jobs survive a service (or NATS) being down and coming back.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MediaServer, startMediaServer } from "../support/MediaServer.ts"
import { type ServiceName, startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { type ApiResponse, apiFor, apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { fetchFile } from "./MediaProbe.ts"

let media: MediaServer
let stack: ServiceStack
let key: string
let api: ReturnType<typeof apiFor>

beforeAll(async () => {
  media = await startMediaServer()
  stack = await startServiceStack({ env: { EGRESS_ALLOW: media.hostPort } })
  key = (await stack.provisionKey()).key
  api = apiFor(stack.baseUrl, key)
})

afterAll(async () => {
  await stack?.close()
  await media?.close()
})

const context = (response: ApiResponse) => `${describeResponse(response)}\n${stack.logs()}`

/** The harness notes every exit in the logs; a clean SIGTERM shutdown ends before the harness's SIGKILL fallback. */
const lastExitOf = (label: string) => {
  const exits = stack
    .logs()
    .split("\n")
    .filter((line) => line.startsWith(`[harness] ${label} exited`))
  return exits.at(-1) ?? "no exit recorded"
}

const queueAndComplete = async (body: Readonly<Record<string, string>>) => {
  const queued = await api.download(body)
  expect(queued.status, context(queued)).toBe(202)
  const { job } = await pollJobUntilFinished(stack.baseUrl, key, queued.body.data.job_id, { logs: stack.logs })
  expect(job.status, `${JSON.stringify(job)}\n${stack.logs()}`).toBe("completed")
  const file = await fetchFile(job.result.download_url)
  expect(file.status).toBe(200)
  expect(file.bytes.length).toBe(job.result.size_bytes)
  return job
}

describe("restarts", () => {
  it.each<ServiceName>(["aggregator", "extractor", "gateway"])("%s shuts down in order on SIGTERM and comes back", async (name) => {
    await stack.stopService(name, "SIGTERM")
    const exit = lastExitOf(name)
    await stack.startService(name)
    // A requested stop exits 0: never the SIGKILL fallback, a crash, or an interrupt code a supervisor would read as failure.
    expect(exit, stack.logs()).toMatch(new RegExp(`^\\[harness\\] ${name} exited code=0 signal=null$`))
    const health = await apiRequest(stack.baseUrl, "GET", "/health")
    expect(health.status, context(health)).toBe(200)
  })

  it("a job queued while the aggregator is down is readable at once and completes after it returns", async () => {
    await stack.stopService("aggregator")
    try {
      const queued = await api.download({ url: media.urls.mp4, format: "video_best" })
      expect(queued.status, context(queued)).toBe(202)
      const jobId: string = queued.body.data.job_id
      // No projection is running: the gateway must fold the job's own events.
      const seen = await api.job(jobId)
      expect(seen.status, context(seen)).toBe(200)
      expect(seen.body.data.id).toBe(jobId)
      await stack.startService("aggregator")
      const { job } = await pollJobUntilFinished(stack.baseUrl, key, jobId, { logs: stack.logs })
      expect(job.status, `${JSON.stringify(job)}\n${stack.logs()}`).toBe("completed")
      expect((await fetchFile(job.result.download_url)).status).toBe(200)
    } finally {
      await stack.startService("aggregator").catch(() => undefined)
    }
  })

  it("a job queued while the extractor is down waits in the work queue and completes after it returns", async () => {
    await stack.stopService("extractor")
    const queued = await api.download({ url: media.urls.audio, format: "audio_m4a" })
    expect(queued.status, context(queued)).toBe(202)
    const jobId: string = queued.body.data.job_id
    await new Promise((r) => setTimeout(r, 2_000))
    const waiting = await api.job(jobId)
    expect(waiting.status, context(waiting)).toBe(200)
    expect(waiting.body.data.status, context(waiting)).toBe("queued")
    await stack.startService("extractor")
    const { job } = await pollJobUntilFinished(stack.baseUrl, key, jobId, { logs: stack.logs })
    expect(job.status, `${JSON.stringify(job)}\n${stack.logs()}`).toBe("completed")
  })

  it("after a gateway restart, existing keys and jobs are still known", async () => {
    const job = await queueAndComplete({ url: media.urls.mp4, format: "video_best" })
    await stack.stopService("gateway")
    await stack.startService("gateway")
    const again = await api.job(job.id)
    expect(again.status, context(again)).toBe(200)
    expect(again.body.data.status).toBe("completed")
    expect(again.body.data.result.size_bytes).toBe(job.result.size_bytes)
  })

  it("after NATS restarts, every service reconnects and a new job completes", async () => {
    await stack.nats.stop()
    await stack.nats.start()
    const deadline = Date.now() + 30_000
    let health = await apiRequest(stack.baseUrl, "GET", "/health")
    while (health.status !== 200 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500))
      health = await apiRequest(stack.baseUrl, "GET", "/health")
    }
    expect(health.status, context(health)).toBe(200)
    await queueAndComplete({ url: media.urls.mp4, format: "audio_mp3" })
  })
})
