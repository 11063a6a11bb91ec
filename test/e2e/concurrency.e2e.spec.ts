// End to end: the per-project limit of two queued-or-processing jobs holds under a burst, across two gateway processes.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type MediaServer, startMediaServer } from "../support/MediaServer.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { type ApiResponse, apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"

const BURST = 10

let media: MediaServer
let stack: ServiceStack

beforeAll(async () => {
  // The slow clip keeps accepted jobs busy for seconds, far longer than a burst of POSTs takes.
  media = await startMediaServer({ throttleBytesPerSecond: 512 * 1024 })
  stack = await startServiceStack({ gateways: 2, env: { EGRESS_ALLOW: media.hostPort } })
})

afterAll(async () => {
  await stack?.close()
  await media?.close()
})

const downloadVia = (gatewayUrl: string, key: string) =>
  apiRequest(gatewayUrl, "POST", "/media/download", { key, json: { url: media.urls.slow, format: "video_best" } })

/** Checks a burst's answers: exactly `accepted` 202s, the rest 429 with the spec's code; returns the accepted job ids. */
const expectSplit = (responses: ReadonlyArray<ApiResponse>, accepted: number) => {
  const summary = `${responses.map(describeResponse).join("\n")}\n${stack.logs()}`
  const statuses = responses.map((r) => r.status)
  expect(statuses.filter((s) => s === 202).length, summary).toBe(accepted)
  expect(statuses.filter((s) => s === 429).length, summary).toBe(responses.length - accepted)
  for (const refused of responses.filter((r) => r.status === 429)) {
    expect(refused.body.error.code, summary).toBe("concurrency_limit_exceeded")
    expect(refused.body.error.request_id).toBe(refused.headers.get("x-request-id"))
  }
  const jobIds = responses.filter((r) => r.status === 202).map((r) => r.body.data.job_id as string)
  expect(new Set(jobIds).size).toBe(accepted)
  return jobIds
}

describe("concurrency limit", () => {
  it("one gateway: 10 simultaneous downloads -> two 202 and eight 429; another project is unaffected", async () => {
    const [first] = stack.gatewayUrls
    const busy = await stack.provisionKey()
    const bystander = await stack.provisionKey()
    const [burst, others] = await Promise.all([
      Promise.all(Array.from({ length: BURST }, () => downloadVia(first ?? "", busy.key))),
      Promise.all([downloadVia(first ?? "", bystander.key), downloadVia(first ?? "", bystander.key)])
    ])
    const jobIds = expectSplit(burst, 2)
    expectSplit(others, 2)

    // Still full while the two jobs run.
    const stillFull = await downloadVia(first ?? "", busy.key)
    expect(stillFull.status, describeResponse(stillFull)).toBe(429)

    // Once both accepted jobs have finished, the project may queue again.
    for (const jobId of jobIds) {
      const { job } = await pollJobUntilFinished(first ?? "", busy.key, jobId, { timeoutMs: 150_000, logs: stack.logs })
      expect(job.status, JSON.stringify(job)).toBe("completed")
    }
    const again = await downloadVia(first ?? "", busy.key)
    expect(again.status, `${describeResponse(again)}\n${stack.logs()}`).toBe(202)
  })

  it("two gateways on one NATS: a burst split across them still yields exactly two 202", async () => {
    expect(stack.gatewayUrls.length).toBe(2)
    const busy = await stack.provisionKey()
    const burst = await Promise.all(Array.from({ length: BURST }, (_, i) => downloadVia(stack.gatewayUrls[i % 2] ?? "", busy.key)))
    const jobIds = expectSplit(burst, 2)
    // Either gateway sees the jobs the other accepted.
    for (const jobId of jobIds) {
      for (const gatewayUrl of stack.gatewayUrls) {
        const seen = await apiRequest(gatewayUrl, "GET", `/jobs/${jobId}`, { key: busy.key })
        expect(seen.status, describeResponse(seen)).toBe(200)
      }
    }
  })
})
