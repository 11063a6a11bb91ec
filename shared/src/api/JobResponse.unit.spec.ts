// Given a job read-model document, then the /v1 job object: ISO dates, integer progress, result and error only when due.
import { tmpdir } from "node:os"
import { Effect, Schema } from "effect"
import { JobView } from "../domain/job/JobView.ts"
import { describe, expect, it } from "vitest"
import { jobView } from "../../../test/support/JobViews.ts"
import { makeDownloadLinkSigner } from "../artifacts/DownloadLinkSigner.ts"
import { makeFsArtifactStore } from "../artifacts/FsArtifactStore.ts"
import { answerJob, toJobResponse } from "./JobResponse.ts"

const T0 = Date.UTC(2026, 0, 2, 3, 4, 5)

const queued: JobView = jobView("prj_aaaaaaaaaaaaaaaaaaaaaaaa", {
  id: "job_aaaaaaaaaaaaaaaaaaaaaaaa",
  createdAt: T0,
  expiresAt: T0 + 3_600_000
})

describe("toJobResponse", () => {
  it("a queued job: no started_at, completed_at, result or error", () => {
    expect(toJobResponse(queued, null)).toEqual({
      id: queued.id,
      status: "queued",
      progress: 0,
      platform: "vimeo",
      requested_format: "video_best",
      created_at: "2026-01-02T03:04:05.000Z"
    })
  })

  it("a job with a destination: its options say where, and its delivery how far it came", () => {
    const artifact = { key: "k", filename: "v.mp4", mimeType: "video/mp4", sizeBytes: 1, availableUntil: T0 + 7_200_000 }
    const delivery = {
      destinationId: "dst_a",
      path: "Chan/Talk.mp4",
      sidecars: [],
      status: "pending" as const,
      attempts: 1,
      retryAt: T0 + 10_000,
      error: { code: "destination_unreachable" as const, message: "refused" },
      deliveredAt: null
    }
    const pending: JobView = {
      ...queued,
      status: "processing",
      startedAt: T0,
      artifact,
      options: { delivery: { destinationId: "dst_a", pathTemplate: "{title}.{ext}", sidecars: ["nfo"] } },
      delivery
    }
    const api = toJobResponse(pending, "https://link")
    expect(api.options).toEqual({ destination: { id: "dst_a", path: "{title}.{ext}" }, sidecars: ["nfo"] })
    expect(api.delivery).toEqual({
      destination_id: "dst_a",
      path: "Chan/Talk.mp4",
      status: "pending",
      attempts: 1,
      next_attempt_at: "2026-01-02T03:04:15.000Z",
      error: { code: "destination_unreachable", message: "refused" }
    })
    expect(api).not.toHaveProperty("result")
    // A delivery that failed for good keeps the stored file's link until the job's end.
    const failed: JobView = {
      ...pending,
      status: "failed",
      completedAt: T0 + 20_000,
      error: { code: "destination_unreachable", message: "refused", retryable: false },
      delivery: { ...delivery, status: "failed", retryAt: null }
    }
    expect(toJobResponse(failed, "https://link").result?.download_url).toBe("https://link")
    expect(Schema.decodeUnknownSync(JobView)(Schema.encodeSync(JobView)(failed))).toEqual(failed)
  })

  it("a processing job: started_at and integer progress", () => {
    const processing = { ...queued, status: "processing" as const, progress: 41.6, startedAt: T0 + 1000 }
    const api = toJobResponse(processing, null)
    expect(api.status).toBe("processing")
    expect(api.progress).toBe(42)
    expect(api.started_at).toBe("2026-01-02T03:04:06.000Z")
    expect(api).not.toHaveProperty("completed_at")
  })

  it("a completed job: result with the given link and the artifact's expiry", () => {
    const completed: JobView = {
      ...queued,
      status: "completed",
      progress: 100,
      startedAt: T0 + 1000,
      completedAt: T0 + 5000,
      artifact: { key: "k/clip.mp4", filename: "clip.mp4", mimeType: "video/mp4", sizeBytes: 1234, availableUntil: T0 + 7_200_000 }
    }
    const api = toJobResponse(completed, "https://dl.example/clip.mp4?sig=1")
    expect(api.completed_at).toBe("2026-01-02T03:04:10.000Z")
    expect(api.result).toEqual({
      download_url: "https://dl.example/clip.mp4?sig=1",
      filename: "clip.mp4",
      mime_type: "video/mp4",
      size_bytes: 1234,
      expires_at: "2026-01-02T05:04:05.000Z"
    })
    expect(api).not.toHaveProperty("error")
  })

  it("a failed job: error with code, message and whether queueing it again may help (no request_id)", () => {
    const failed: JobView = {
      ...queued,
      status: "failed",
      completedAt: T0 + 3000,
      error: { code: "media_unavailable", message: "This video is private.", retryable: false }
    }
    const api = toJobResponse(failed, null)
    expect(api.status).toBe("failed")
    expect(api.error).toEqual({ code: "media_unavailable", message: "This video is private.", retryable: false })
    expect(api).not.toHaveProperty("result")
  })

  it("a completed job from a lost recording's kept parts: partial true with its reason; no other job says partial", () => {
    const recording = {
      attempt: 1,
      startedAt: T0 + 1000,
      maxDurationSeconds: 600,
      seconds: 18,
      bytes: 524_288,
      stopRequestedAt: null,
      ended: "worker_lost" as const,
      kept: { chunks: 3, bytes: 500_000, seconds: 16 }
    }
    const completed: JobView = {
      ...queued,
      status: "completed",
      progress: 100,
      startedAt: T0 + 1000,
      completedAt: T0 + 30_000,
      artifact: {
        key: "k/recording.mp4",
        filename: "recording.mp4",
        mimeType: "video/mp4",
        sizeBytes: 1234,
        availableUntil: T0 + 7_200_000
      },
      recording,
      partial: "worker_lost"
    }
    const api = toJobResponse(completed, "https://dl.example/recording.mp4?sig=1")
    expect(api).toMatchObject({ partial: true, partial_reason: "worker_lost", recording: { ended: "worker_lost" } })
    expect(api.recording).not.toHaveProperty("kept")
    expect(toJobResponse({ ...completed, partial: undefined } as unknown as JobView, null)).not.toHaveProperty("partial")
  })
})

describe("answerJob", () => {
  const signer = makeDownloadLinkSigner("answer-secret", "https://mds.example")
  const artifacts = makeFsArtifactStore(tmpdir(), signer)
  const artifact = { key: "k/clip.mp4", filename: "clip.mp4", mimeType: "video/mp4", sizeBytes: 1234, availableUntil: T0 + 7_200_000 }
  const completed: JobView = { ...queued, status: "completed", progress: 100, completedAt: T0 + 5000, artifact }

  it("a completed job: the link signed now from its artifact, by the answering service's signer", () => {
    const api = Effect.runSync(answerJob(artifacts, completed))
    expect(api).toEqual(toJobResponse(completed, signer.url(artifact.key, artifact.availableUntil, artifact.filename)))
    expect(api.result?.download_url).toMatch(/^https:\/\/mds\.example\/v1\/files\/k\/clip\.mp4\?expires=/)
  })

  it("a document stored before links were signed on answer: its stored downloadUrl is dropped and never answered", () => {
    const stored = JSON.stringify({
      ...Schema.encodeSync(JobView)(completed),
      downloadUrl: "http://127.0.0.1:8080/v1/files/k/clip.mp4?expires=1&signature=old"
    })
    const decoded = Schema.decodeUnknownSync(Schema.fromJsonString(JobView))(stored)
    expect(decoded).toEqual(completed)
    expect(Effect.runSync(answerJob(artifacts, decoded)).result?.download_url).toBe(
      signer.url(artifact.key, artifact.availableUntil, artifact.filename)
    )
  })

  it("a job not completed, or a failed one that kept an artifact field, has no link and signs nothing", () => {
    const failing = makeFsArtifactStore(tmpdir(), { ...signer, url: () => expect.unreachable("signed") })
    expect(Effect.runSync(answerJob(failing, queued))).not.toHaveProperty("result")
    expect(Effect.runSync(answerJob(failing, { ...completed, status: "failed" }))).not.toHaveProperty("result")
  })
})
