// The per-project limit under concurrent POSTs, on one and on two gateway instances sharing a nats-server.
import { releaseSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import type { LightMyRequestResponse } from "fastify"
import { describe, expect, it } from "vitest"
import { type GatewayInstance, useHarness } from "./GatewayHarness.ts"

const file = useHarness({ second: true })

const download = (gateway: GatewayInstance, key: string) =>
  gateway.app.inject({
    method: "POST",
    url: "/v1/media/download",
    payload: JSON.stringify({ url: "https://vimeo.com/555", format: "video_best" }),
    headers: { "content-type": "application/json", "x-api-key": key }
  })

const split = (responses: ReadonlyArray<LightMyRequestResponse>) => {
  const summary = responses.map((r) => `${r.statusCode} ${r.body}`).join("\n")
  for (const refused of responses.filter((r) => r.statusCode === 429)) {
    expect(refused.json().error.code, summary).toBe("concurrency_limit_exceeded")
    expect(refused.json().error.request_id).toBe(refused.headers["x-request-id"])
  }
  return {
    accepted: responses.filter((r) => r.statusCode === 202).map((r) => r.json().data.job_id as string),
    refused: responses.filter((r) => r.statusCode === 429).length,
    summary
  }
}

/** What a worker and the aggregator would record when a job finishes; `release` as the aggregator would. */
const completeJob = async (projectId: string, jobId: string, release: boolean) => {
  const availableUntil = Date.now() + 60_000
  await file.h.completeJob(projectId, jobId, {
    key: `${projectId}/${jobId}/a.mp4`,
    filename: "a.mp4",
    mimeType: "video/mp4",
    sizeBytes: 1,
    availableUntil
  })
  if (release) await file.h.gateway.run(releaseSlot(projectId, jobId, "completed"))
}

const cancel = (gateway: GatewayInstance, key: string, jobId: string) =>
  gateway.app.inject({ method: "DELETE", url: `/v1/jobs/${jobId}`, headers: { "x-api-key": key } })

/** A worker takes the job: JobStarted, as DownloadJob records it before running yt-dlp. */
const startJob = (projectId: string, jobId: string) =>
  file.h.gateway.run(jobCommands(projectId, jobId)({ _tag: "StartJob", jobId, workerId: "w1", now: Date.now() }))

describe("concurrency limit", () => {
  it("10 simultaneous POSTs for one project -> exactly two 202 and eight 429; another project is unaffected", async () => {
    const busy = await file.h.provisionKey()
    const bystander = await file.h.provisionKey()
    const [burst, others] = await Promise.all([
      Promise.all(Array.from({ length: 10 }, () => download(file.h.gateway, busy.key))),
      Promise.all([download(file.h.gateway, bystander.key), download(file.h.gateway, bystander.key)])
    ])
    const result = split(burst)
    expect(result.accepted.length, result.summary).toBe(2)
    expect(result.refused, result.summary).toBe(8)
    expect(split(others).accepted.length).toBe(2)
  })

  it("the same split across two gateway instances on one NATS", async () => {
    const busy = await file.h.provisionKey()
    const burst = await Promise.all(Array.from({ length: 10 }, (_, i) => download(i % 2 === 0 ? file.h.gateway : file.second, busy.key)))
    const result = split(burst)
    expect(result.accepted.length, result.summary).toBe(2)
    expect(result.refused, result.summary).toBe(8)
  })

  it("a slot frees when its job completes and the slot is released", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const [a, b] = split(await Promise.all([download(file.h.gateway, key), download(file.h.gateway, key)])).accepted
    expect((await download(file.h.gateway, key)).statusCode).toBe(429)
    await completeJob(projectId, a ?? "", true)
    const next = await download(file.second, key)
    expect(next.statusCode, next.body).toBe(202)
    expect((await download(file.h.gateway, key)).statusCode).toBe(429)
    expect(b).toBeDefined()
  })

  it("a completed job whose slot nobody released yet does not block the project", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const [a] = split(await Promise.all([download(file.h.gateway, key), download(file.h.gateway, key)])).accepted
    expect((await download(file.h.gateway, key)).statusCode).toBe(429)
    await completeJob(projectId, a ?? "", false)
    const next = await download(file.h.gateway, key)
    expect(next.statusCode, next.body).toBe(202)
    expect((await download(file.h.gateway, key)).statusCode).toBe(429)
  })

  it("a job canceled while queued frees its slot at once", async () => {
    const { key } = await file.h.provisionKey()
    const [a] = split(await Promise.all([download(file.h.gateway, key), download(file.h.gateway, key)])).accepted
    expect((await cancel(file.h.gateway, key, a ?? "")).statusCode).toBe(200)
    const next = await download(file.second, key)
    expect(next.statusCode, next.body).toBe(202)
  })

  it("the gateway that canceled a job answers it canceled at once (its read of the job does not wait for the projection)", async () => {
    const { key } = await file.h.provisionKey()
    const [a] = split(await Promise.all([download(file.h.gateway, key), download(file.h.gateway, key)])).accepted
    const jobId = a ?? ""
    // The gateway holds its view of the queued job from the POST (read-your-writes): the cancel must replace it.
    expect((await cancel(file.h.gateway, key, jobId)).statusCode).toBe(200)
    const after = await file.h.gateway.app.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers: { "x-api-key": key } })
    expect(after.json().data, after.body).toMatchObject({ status: "failed", error: { code: "canceled" } })
  })

  it("a job canceled while its run goes on keeps its slot until the worker stopped the run and freed it", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const [a] = split(await Promise.all([download(file.h.gateway, key), download(file.h.gateway, key)])).accepted
    await startJob(projectId, a ?? "")
    const canceled = await cancel(file.h.gateway, key, a ?? "")
    expect(canceled.statusCode, canceled.body).toBe(200)
    expect(canceled.json().data.error.code).toBe("canceled")
    // The run may still be downloading: a third job would run beside it. Neither gateway frees it on its own.
    expect((await download(file.h.gateway, key)).statusCode).toBe(429)
    expect((await download(file.second, key)).statusCode).toBe(429)
    // The worker killed yt-dlp, removed its files and frees the slot (DownloadJob).
    await file.h.gateway.run(releaseSlot(projectId, a ?? "", "canceled"))
    const next = await download(file.second, key)
    expect(next.statusCode, next.body).toBe(202)
  })
})
