// End to end: services stop cleanly on SIGTERM, and jobs survive a service (or NATS) being down and coming back.
import { describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import type { ServiceName } from "../support/ServiceStack.ts"
import { apiRequest } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { fetchFile } from "./MediaProbe.ts"
import { useMediaStack } from "./MediaStack.ts"

const e2e = useMediaStack({ inspect: true })

/** The harness notes every exit in the logs; a clean SIGTERM shutdown ends before the harness's SIGKILL fallback. */
const lastExitOf = (label: string) => {
  const exits = e2e.stack
    .logs()
    .split("\n")
    .filter((line) => line.startsWith(`[harness] ${label} exited`))
  return exits.at(-1) ?? "no exit recorded"
}

const queueAndComplete = async (body: Readonly<Record<string, string>>) => {
  const queued = await e2e.api.download(body)
  expect(queued.status, e2e.context(queued)).toBe(202)
  const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, queued.body.data.job_id, { logs: e2e.stack.logs })
  expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
  const file = await fetchFile(job.result.download_url)
  expect(file.status).toBe(200)
  expect(file.bytes.length).toBe(job.result.size_bytes)
  return job
}

describe("restarts", () => {
  it.each<ServiceName>(["aggregator", "extractor", "gateway"])("%s shuts down in order on SIGTERM and comes back", async (name) => {
    await e2e.stack.stopService(name, "SIGTERM")
    const exit = lastExitOf(name)
    await e2e.stack.startService(name)
    // A requested stop exits 0: never the SIGKILL fallback, a crash, or an interrupt code a supervisor would read as failure.
    expect(exit, e2e.stack.logs()).toMatch(new RegExp(`^\\[harness\\] ${name} exited code=0 signal=null$`))
    const health = await apiRequest(e2e.stack.baseUrl, "GET", "/health")
    expect(health.status, e2e.context(health)).toBe(200)
  })

  it("a job queued while the aggregator is down is readable at once and completes after it returns", async () => {
    await e2e.stack.stopService("aggregator")
    try {
      const queued = await e2e.api.download({ url: e2e.media.urls.mp4, format: "video_best" })
      expect(queued.status, e2e.context(queued)).toBe(202)
      const jobId: string = queued.body.data.job_id
      // No projection is running: the gateway must fold the job's own events.
      const seen = await e2e.api.job(jobId)
      expect(seen.status, e2e.context(seen)).toBe(200)
      expect(seen.body.data.id).toBe(jobId)
      await e2e.stack.startService("aggregator")
      const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
      expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
      expect((await fetchFile(job.result.download_url)).status).toBe(200)
    } finally {
      await e2e.stack.startService("aggregator").catch(() => undefined)
    }
  })

  it("a job queued while the extractor is down waits in the work queue and completes after it returns", async () => {
    await e2e.stack.stopService("extractor")
    const queued = await e2e.api.download({ url: e2e.media.urls.audio, format: "audio_m4a" })
    expect(queued.status, e2e.context(queued)).toBe(202)
    const jobId: string = queued.body.data.job_id
    await eventually(
      () => e2e.inspector.queuedWork(),
      (work) => work.some((command) => command.includes(jobId)),
      "the job's download command in the work queue"
    )
    const waiting = await e2e.api.job(jobId)
    expect(waiting.status, e2e.context(waiting)).toBe(200)
    expect(waiting.body.data.status, e2e.context(waiting)).toBe("queued")
    await e2e.stack.startService("extractor")
    const { job } = await pollJobUntilFinished(e2e.stack.baseUrl, e2e.key, jobId, { logs: e2e.stack.logs })
    expect(job.status, `${JSON.stringify(job)}\n${e2e.stack.logs()}`).toBe("completed")
  })

  it("after a gateway restart, existing keys and jobs are still known", async () => {
    const job = await queueAndComplete({ url: e2e.media.urls.mp4, format: "video_best" })
    await e2e.stack.stopService("gateway")
    await e2e.stack.startService("gateway")
    const again = await e2e.api.job(job.id)
    expect(again.status, e2e.context(again)).toBe(200)
    expect(again.body.data.status).toBe("completed")
    expect(again.body.data.result.size_bytes).toBe(job.result.size_bytes)
  })

  it("after NATS restarts, every service reconnects and a new job completes", async () => {
    await e2e.stack.nats.stop()
    await e2e.stack.nats.start()
    const health = await eventually(
      () => apiRequest(e2e.stack.baseUrl, "GET", "/health"),
      (r) => r.status === 200,
      () => `health 200 again\n${e2e.stack.logs()}`,
      30_000
    )
    expect(health.status, e2e.context(health)).toBe(200)
    await queueAndComplete({ url: e2e.media.urls.mp4, format: "audio_mp3" })
  })
})
