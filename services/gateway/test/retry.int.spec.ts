// POST /v1/jobs/{jobId}/retry: a failed job whose failure was retryable is queued again in one of the project's slots.
import { releaseSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import type { JobErrorCode } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { downloadWorkSubject } from "@mds/shared/nats/Subjects"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { type GatewayInstance, useHarness } from "./GatewayHarness.ts"

const file = useHarness({ second: true })

const download = async (gateway: GatewayInstance, key: string) => {
  const response = await gateway.app.inject({
    method: "POST",
    url: "/v1/media/download",
    payload: JSON.stringify({ url: "https://vimeo.com/555", format: "video_best" }),
    headers: { "content-type": "application/json", "x-api-key": key }
  })
  return { status: response.statusCode, jobId: response.statusCode === 202 ? (response.json().data.job_id as string) : "" }
}

const retry = (gateway: GatewayInstance, key: string, jobId: string) =>
  gateway.app.inject({ method: "POST", url: `/v1/jobs/${jobId}/retry`, headers: { "x-api-key": key } })

/** What a worker records for a run that failed with `code`, and its freeing of the slot. */
const runAndFail = async (projectId: string, jobId: string, code: JobErrorCode) => {
  const jobs = jobCommands(projectId, jobId)
  await file.h.gateway.run(
    Effect.gen(function* () {
      yield* jobs({ _tag: "StartJob", jobId, workerId: "w1", now: Date.now() })
      yield* jobs({
        _tag: "FailJob",
        jobId,
        error: { code, message: "run failed", retryable: code === "download_failed" },
        now: Date.now()
      })
      yield* releaseSlot(projectId, jobId, "failed")
    })
  )
}

/** The work messages handed to the extractor fleet for the job. */
const workFor = (projectId: string, jobId: string) =>
  file.h.gateway.run(
    Effect.map(
      Effect.flatMap(EventStore, (store) => store.readSubject(DownloadMedia, downloadWorkSubject(projectId, jobId))),
      (stored) => stored.filter(({ event }) => event.jobId === jobId)
    )
  )

/**
 * The job as `gateway` answers it, once it shows `status`: the gateway's view of a job it queued is what it wrote
 * (read-your-writes) until the projection brings the worker's writes (made here directly), a moment later.
 */
const readOnceItIs = (gateway: GatewayInstance, key: string, jobId: string, status: string) =>
  eventually(
    async () => (await gateway.app.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers: { "x-api-key": key } })).json().data,
    (data) => data?.status === status,
    `job ${jobId} read as ${status}`
  )

describe("POST /v1/jobs/{jobId}/retry", () => {
  it("202: queues a job that failed for a passing reason again, in a slot of its own, handed to a worker anew", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const a = await download(file.h.gateway, key)
    await runAndFail(projectId, a.jobId, "download_failed")
    const response = await retry(file.h.gateway, key, a.jobId)
    expect(response.statusCode, response.body).toBe(202)
    expect(response.json().data).toMatchObject({ id: a.jobId, status: "queued", progress: 0, retries: 1, attempts: 1 })
    expect(response.json().data.error).toBeUndefined()
    // Read back from either gateway: queued again.
    const read = await file.second.app.inject({ method: "GET", url: `/v1/jobs/${a.jobId}`, headers: { "x-api-key": key } })
    expect(read.json().data).toMatchObject({ status: "queued", retries: 1 })
    // A second work message, though the first was sent moments ago (within the stream's duplicate window).
    expect(await workFor(projectId, a.jobId)).toHaveLength(2)
    // The retried job holds a slot again (claimed within the duplicate window of its first claim): one more fits, not two.
    expect((await download(file.h.gateway, key)).status).toBe(202)
    expect((await download(file.second, key)).status).toBe(429)
  })

  it("409: a job that is not failed, whose failure is not retryable, or that was canceled stays as it was", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const queued = await download(file.h.gateway, key)
    const notFailed = await retry(file.h.gateway, key, queued.jobId)
    expect(notFailed.statusCode, notFailed.body).toBe(409)
    expect(notFailed.json().error.code).toBe("job_not_failed")

    const canceled = await file.h.gateway.app.inject({ method: "DELETE", url: `/v1/jobs/${queued.jobId}`, headers: { "x-api-key": key } })
    expect(canceled.statusCode).toBe(200)
    expect((await retry(file.h.gateway, key, queued.jobId)).json().error.code).toBe("job_canceled")

    const gone = await download(file.h.gateway, key)
    await runAndFail(projectId, gone.jobId, "media_unavailable")
    const refused = await retry(file.h.gateway, key, gone.jobId)
    expect(refused.statusCode, refused.body).toBe(409)
    expect(refused.json().error).toMatchObject({ code: "job_not_retryable" })
    expect(refused.json().error.message).toContain("media_unavailable")
    expect(await readOnceItIs(file.h.gateway, key, gone.jobId, "failed")).toMatchObject({ error: { code: "media_unavailable" } })
    // Nothing was claimed for the refused retries: both slots are free.
    expect((await download(file.h.gateway, key)).status).toBe(202)
    expect((await download(file.h.gateway, key)).status).toBe(202)
  })

  it("404: another project's job, or an unknown one", async () => {
    const owner = await file.h.provisionKey()
    const other = await file.h.provisionKey()
    const a = await download(file.h.gateway, owner.key)
    await runAndFail(owner.projectId, a.jobId, "download_failed")
    const foreign = await retry(file.h.gateway, other.key, a.jobId)
    expect(foreign.statusCode, foreign.body).toBe(404)
    expect(foreign.json().error.code).toBe("job_not_found")
    expect((await retry(file.h.gateway, owner.key, "job_aaaaaaaaaaaaaaaaaaaaaaaa")).statusCode).toBe(404)
    expect((await retry(file.h.gateway, owner.key, "not-a-job")).statusCode).toBe(404)
    // The owner's job was left failed by the foreign request.
    await readOnceItIs(file.h.gateway, owner.key, a.jobId, "failed")
  })

  it("429: with the project's two slots held, the job stays failed until one frees", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const a = await download(file.h.gateway, key)
    await runAndFail(projectId, a.jobId, "download_timeout")
    const [b, c] = [await download(file.h.gateway, key), await download(file.h.gateway, key)]
    expect([b.status, c.status]).toEqual([202, 202])
    const full = await retry(file.second, key, a.jobId)
    expect(full.statusCode, full.body).toBe(429)
    expect(full.json().error.code).toBe("concurrency_limit_exceeded")
    expect(full.headers["retry-after"]).toBeDefined()
    await readOnceItIs(file.h.gateway, key, a.jobId, "failed")
    await file.h.gateway.run(releaseSlot(projectId, b.jobId, "completed"))
    expect((await retry(file.second, key, a.jobId)).statusCode).toBe(202)
  })

  it("needs the media:download scope", async () => {
    const { key } = await file.h.provisionKey({ scopes: ["media:resolve"] })
    const response = await retry(file.h.gateway, key, "job_aaaaaaaaaaaaaaaaaaaaaaaa")
    expect(response.statusCode).toBe(403)
    expect(response.json().error.code).toBe("insufficient_scope")
  })
})
