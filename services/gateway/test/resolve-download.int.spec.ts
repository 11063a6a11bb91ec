// Resolve, download validation, job reads (read-your-writes, project isolation) and signed file links, on a real nats-server.
import { writeFile } from "node:fs/promises"
import { join } from "node:path"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { DownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { Effect } from "effect"
import type { LightMyRequestResponse } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { fakeMedia, type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let key: string
let projectId: string

beforeAll(async () => {
  h = await startHarness()
  ;({ key, projectId } = await h.provisionKey())
})
afterAll(async () => {
  await h?.close()
})

const post = (url: string, body: unknown, apiKey = key) =>
  h.gateway.app.inject({
    method: "POST",
    url,
    payload: JSON.stringify(body),
    headers: { "content-type": "application/json", "x-api-key": apiKey }
  })
const getJob = (jobId: string, apiKey = key) =>
  h.gateway.app.inject({ method: "GET", url: `/v1/jobs/${jobId}`, headers: { "x-api-key": apiKey } })

const expectError = (response: LightMyRequestResponse, status: number, code: string) => {
  expect(response.statusCode, response.body).toBe(status)
  expect(response.json().error.code).toBe(code)
  expect(response.json().error.request_id).toBe(response.headers["x-request-id"])
  return response.json().error.message as string
}

describe("POST /media/resolve", () => {
  it("returns the media the extractor resolved, then serves the same URL from the read model", async () => {
    const url = "https://vimeo.com/123456"
    const first = await post("/v1/media/resolve", { url })
    expect(first.statusCode, first.body).toBe(200)
    const media = first.json().data
    expect(media.id).toMatch(/^med_/)
    // What the fake extractor resolved, in the API's fields.
    const { platform, type, title, duration, author, formats } = fakeMedia(url, Date.now())
    expect(media).toMatchObject({ platform, type, title, duration, author, formats })
    expect(Object.keys(media).sort()).toEqual([
      "author",
      "duration",
      "formats",
      "id",
      "live_status",
      "platform",
      "thumbnail",
      "title",
      "type"
    ])
    const answered = h.resolveCount()
    // Without an aggregator in this test the read model is empty, so the RPC is asked again: the cache is the aggregator's.
    const again = await post("/v1/media/resolve", { url })
    expect(again.statusCode).toBe(200)
    expect(h.resolveCount()).toBe(answered + 1)
  })

  it("short links and the unsupported video platform -> 422 unsupported_platform, without asking an extractor", async () => {
    const before = h.resolveCount()
    expectError(await post("/v1/media/resolve", { url: "https://youtu.be/abc" }), 422, "unsupported_platform")
    expectError(await post("/v1/media/resolve", { url: "https://www.youtube.com/watch?v=abc" }), 422, "unsupported_platform")
    expectError(await post("/v1/media/resolve", { url: "https://bit.ly/xyz" }), 422, "unsupported_platform")
    expect(h.resolveCount()).toBe(before)
  })

  it("private addresses -> 422 url_not_allowed", async () => {
    expectError(await post("/v1/media/resolve", { url: "http://127.0.0.1:8080/video.mp4" }), 422, "url_not_allowed")
    expectError(await post("/v1/media/resolve", { url: "https://media.internal/clip.mp4" }), 422, "url_not_allowed")
  })

  it("extractor rejections map to media_unavailable 422 and extraction_failed 502", async () => {
    expectError(await post("/v1/media/resolve", { url: "https://vimeo.com/private-1" }), 422, "media_unavailable")
    expectError(await post("/v1/media/resolve", { url: "https://vimeo.com/broken-1" }), 502, "extraction_failed")
  })
})

describe("POST /media/download", () => {
  it("rejects both or neither of media_id and url, and unknown or malformed media ids", async () => {
    expect(expectError(await post("/v1/media/download", { format: "video_best" }), 400, "invalid_request")).toContain("media_id")
    expectError(
      await post("/v1/media/download", { format: "video_best", url: "https://vimeo.com/1", media_id: "med_aaaaaaaaaaaaaaaaaaaaaaaa" }),
      400,
      "invalid_request"
    )
    expectError(await post("/v1/media/download", { media_id: "med_aaaaaaaaaaaaaaaaaaaaaaaa" }), 400, "invalid_request")
    expectError(
      await post("/v1/media/download", { format: "video_best", media_id: "med_aaaaaaaaaaaaaaaaaaaaaaaa" }),
      404,
      "media_not_found"
    )
    expectError(await post("/v1/media/download", { format: "video_best", media_id: "../etc" }), 404, "media_not_found")
  })

  it("a format the media does not offer -> 422 format_unavailable listing the available ids", async () => {
    const media = (await post("/v1/media/resolve", { url: "https://vimeo.com/777" })).json().data
    const message = expectError(await post("/v1/media/download", { media_id: media.id, format: "video_720p" }), 422, "format_unavailable")
    expect(message).toContain("video_best")
    expect(message).toContain("audio_m4a")
    expectError(await post("/v1/media/download", { url: "https://vimeo.com/777", format: "video_hd" }), 422, "format_unavailable")
    expectError(await post("/v1/media/download", { url: "https://youtu.be/x", format: "video_best" }), 422, "unsupported_platform")
  })

  it("queues by media_id; the job reads back at once (read-your-writes) and only for its own project", async () => {
    const { key: ownKey } = await h.provisionKey()
    const media = (await post("/v1/media/resolve", { url: "https://vimeo.com/888" }, ownKey)).json().data
    const queued = await post("/v1/media/download", { media_id: media.id, format: "audio_m4a" }, ownKey)
    expect(queued.statusCode, queued.body).toBe(202)
    const { job_id: jobId, status } = queued.json().data
    expect(status).toBe("queued")
    expect(jobId).toMatch(/^job_[a-z2-7]{24}$/)

    const job = await getJob(jobId, ownKey)
    expect(job.statusCode, job.body).toBe(200)
    const data = job.json().data
    expect(data).toMatchObject({ id: jobId, status: "queued", progress: 0, platform: "vimeo", requested_format: "audio_m4a" })
    expect(new Date(data.created_at).toISOString()).toBe(data.created_at)
    expect(data).not.toHaveProperty("result")
    expect(data).not.toHaveProperty("started_at")

    // Another project's key cannot see it; a malformed id is not found either.
    expectError(await getJob(jobId, key), 404, "job_not_found")
    expectError(await getJob("job_not-an-id", ownKey), 404, "job_not_found")
  })

  it("queues by url without a prior resolve", async () => {
    const { key: ownKey } = await h.provisionKey()
    const queued = await post("/v1/media/download", { url: "https://cdn.example.com/clip.mp4", format: "video_720p" }, ownKey)
    expect(queued.statusCode, queued.body).toBe(202)
    const job = (await getJob(queued.json().data.job_id, ownKey)).json().data
    expect(job).toMatchObject({ status: "queued", platform: "generic", requested_format: "video_720p" })
  })
})

describe("completed jobs and signed links", () => {
  it("a completed job carries a download link that serves the file; tampered or expired links are refused", async () => {
    const queued = await post("/v1/media/download", { url: "https://vimeo.com/999", format: "video_best" })
    expect(queued.statusCode, queued.body).toBe(202)
    const jobId: string = queued.json().data.job_id
    const artifactKey = `${projectId}/${jobId}/clip.mp4`
    const content = "not really an mp4"
    const source = join(h.dataDir, "clip-source.mp4")
    await writeFile(source, content)
    const availableUntil = Date.now() + 3_600_000
    await h.gateway.run(
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        yield* store.putFile(artifactKey, source, "video/mp4")
      })
    )
    await h.completeJob(projectId, jobId, {
      key: artifactKey,
      filename: "clip.mp4",
      mimeType: "video/mp4",
      sizeBytes: content.length,
      availableUntil
    })

    // The gateway mirrors the job read model, which the projection writes a moment after the events.
    const read = await eventually(
      () => getJob(jobId),
      (r) => r.json().data?.status === "completed",
      "the job read as completed"
    )
    const job = read.json().data
    expect(job.status).toBe("completed")
    expect(job.progress).toBe(100)
    expect(job.started_at).toBeDefined()
    expect(job.completed_at).toBeDefined()
    expect(job.result).toMatchObject({ filename: "clip.mp4", mime_type: "video/mp4", size_bytes: content.length })
    expect(Date.parse(job.result.expires_at)).toBe(availableUntil)
    const link = new URL(job.result.download_url)
    expect(link.origin).toBe("http://gateway.test")

    const file = await h.gateway.app.inject({ method: "GET", url: `${link.pathname}${link.search}` })
    expect(file.statusCode, file.body).toBe(200)
    expect(file.body).toBe(content)
    expect(file.headers["content-type"]).toBe("video/mp4")
    expect(file.headers["content-length"]).toBe(String(content.length))
    expect(file.headers["content-disposition"]).toContain('attachment; filename="clip.mp4"')

    const head = await h.gateway.app.inject({ method: "HEAD", url: `${link.pathname}${link.search}` })
    expect(head.statusCode).toBe(200)
    expect(head.headers["content-length"]).toBe(String(content.length))
    expect(head.body).toBe("")

    const tampered = new URL(link)
    tampered.searchParams.set("expires", String(Number(link.searchParams.get("expires")) + 60))
    const forged = await h.gateway.app.inject({ method: "GET", url: `${tampered.pathname}${tampered.search}` })
    expectError(forged, 403, "invalid_signature")
    expectError(await h.gateway.app.inject({ method: "GET", url: link.pathname }), 403, "invalid_signature")

    const signedUrl = (key: string, expiresAt: number) =>
      h.gateway.run(
        Effect.gen(function* () {
          const signer = yield* DownloadLinkSigner
          return new URL(signer.url(key, expiresAt, key.split("/").at(-1) ?? ""))
        })
      )
    const expired = await signedUrl(artifactKey, Date.now() - 1000)
    expectError(await h.gateway.app.inject({ method: "GET", url: `${expired.pathname}${expired.search}` }), 410, "link_expired")

    const missing = await signedUrl(`${projectId}/nope/x.mp4`, Date.now() + 60_000)
    expectError(await h.gateway.app.inject({ method: "GET", url: `${missing.pathname}${missing.search}` }), 404, "not_found")
  })
})
