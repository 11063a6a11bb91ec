// The job read-model projection: replayable, idempotent under redelivery, terminal states absorbing.
import { describe, expect, it } from "vitest"
import { jobQueued } from "../../../../test/support/JobEvents.ts"
import type { JobEvent } from "./JobEvent.ts"
import { Schema } from "effect"
import { endsJob, evolveJob, evolveJobView } from "./JobState.ts"
import { isJobVisible, JobView } from "./JobView.ts"
import { parseFormatId } from "../media/FormatId.ts"

const jobId = "job_a"
const queued: JobEvent = jobQueued("prj_a", jobId, 100, {
  platform: "vimeo",
  format: parseFormatId("audio_mp3"),
  source: { url: "https://vimeo.com/1", mediaId: null },
  expiresAt: 10_100
})
const started: JobEvent = { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w", at: 200 }
const progressed = (percent: number, at = 300): JobEvent => ({ _tag: "JobProgressed", v: 1, jobId, percent, at })
const artifact = { key: "k", filename: "a.mp3", mimeType: "audio/mpeg", sizeBytes: 9, availableUntil: 20_000 }
const completed: JobEvent = { _tag: "JobCompleted", v: 1, jobId, artifact, at: 400 }
const failed: JobEvent = { _tag: "JobFailed", v: 1, jobId, error: { code: "download_failed", message: "x", retryable: true }, at: 400 }

/** Folds events numbered by their position as stream sequence (starting at 1). */
const project = (events: ReadonlyArray<JobEvent>, start: JobView | null = null) =>
  events.reduce<JobView | null>((doc, event, index) => evolveJobView(doc, event, index + 1), start)

describe("evolveJobView", () => {
  it("given JobQueued, creates a queued document", () => {
    expect(project([queued])).toEqual({
      id: jobId,
      projectId: "prj_a",
      status: "queued",
      progress: 0,
      platform: "vimeo",
      format: parseFormatId("audio_mp3"),
      source: { url: "https://vimeo.com/1", mediaId: null },
      attempt: 0,
      createdAt: 100,
      expiresAt: 10_100,
      startedAt: null,
      completedAt: null,
      artifact: null,
      error: null,
      lastSeq: 1
    })
  })

  it("given queued, started, progressed, completed: a completed document with artifact", () => {
    const doc = project([queued, started, progressed(40), completed])
    expect(doc).toMatchObject({ status: "completed", progress: 100, attempt: 1, startedAt: 200, completedAt: 400, artifact, lastSeq: 4 })
  })

  it("given JobCompleted with a platform, the document takes the platform of the extractor that handled the job", () => {
    const before = project([queued, started])
    expect(project([queued, started, { ...completed, platform: "artetv" }])?.platform).toBe("artetv")
    expect(project([queued, started, completed])?.platform).toBe(before?.platform)
  })

  it("ignores an event redelivered with a sequence already applied", () => {
    const doc = project([queued, started, progressed(40)])
    expect(evolveJobView(doc, progressed(90), 3)).toBe(doc)
    expect(evolveJobView(doc, progressed(90), 2)).toBe(doc)
  })

  it("keeps progress monotonic even if a smaller value arrives later", () => {
    expect(project([queued, started, progressed(60), progressed(20)])?.progress).toBe(60)
  })

  it("keeps the first startedAt across a restart and raises the attempt", () => {
    const restarted: JobEvent = { ...started, attempt: 2, at: 250 } as JobEvent
    expect(project([queued, started, restarted])).toMatchObject({ startedAt: 200, attempt: 2, status: "processing" })
  })

  it("absorbs events after a terminal state (only the sequence advances)", () => {
    const doc = project([queued, started, failed, progressed(80), completed])
    expect(doc).toMatchObject({ status: "failed", progress: 0, artifact: null, lastSeq: 5, error: { code: "download_failed" } })
  })

  it("ignores events of a job whose JobQueued was never seen", () => {
    expect(project([started, progressed(10), completed])).toBeNull()
  })

  it("ignores a second JobQueued (only its sequence is recorded as folded)", () => {
    const doc = project([queued, started])
    expect(evolveJobView(doc, { ...queued, format: parseFormatId("video_best") } as JobEvent, 3)).toEqual({ ...doc, lastSeq: 3 })
  })

  it("records an expiry as terminal", () => {
    const doc = project([queued, { _tag: "JobExpired", v: 1, jobId, at: 10_100 }])
    expect(doc).toMatchObject({ status: "expired", completedAt: 10_100 })
    expect(doc !== null && isJobVisible(doc, 500)).toBe(false)
  })

  it("replaying the same stream gives the same document", () => {
    const events = [queued, started, progressed(10), progressed(70), completed]
    const once = project(events)
    const again = events.reduce<JobView | null>((doc, event, index) => evolveJobView(doc, event, index + 1), once)
    expect(again).toEqual(once)
  })

  it("isJobVisible: visible until expiresAt", () => {
    const doc = project([queued])!
    expect(isJobVisible(doc, 10_099)).toBe(true)
    expect(isJobVisible(doc, 10_100)).toBe(false)
  })

  it("records a cancel as failed with error.code canceled, absorbing later events", () => {
    const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: 350 }
    const doc = project([queued, started, progressed(30), canceled, completed])
    expect(doc).toMatchObject({ status: "failed", progress: 30, completedAt: 350, artifact: null, lastSeq: 5 })
    expect(doc?.error).toEqual({ code: "canceled", message: expect.any(String), retryable: false })
  })

  it("carries the options of JobQueued, and has none for a plain download", () => {
    const options = { section: { start: 1, end: 2, precise: false } }
    expect(project([{ ...queued, options } as JobEvent])?.options).toEqual(options)
    expect(project([queued])).not.toHaveProperty("options")
  })
})

describe("what reactors ask of a job", () => {
  it("the state keeps the batch entry a batch queued the job for", () => {
    const batch = { batchId: "bat_a", entryId: "e1" }
    expect(project([jobQueued("prj_a", jobId, 100, { batch })])?.batch).toEqual(batch)
    expect(project([queued])).not.toHaveProperty("batch")
  })
  it("endsJob: the events that end a live job, and only those", () => {
    const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: 400 }
    const expired: JobEvent = { _tag: "JobExpired", v: 1, jobId, at: 400 }
    expect([completed, failed, expired, canceled].map(endsJob)).toEqual([true, true, true, true])
    expect([queued, started, progressed(50)].map(endsJob)).toEqual([false, false, false])
  })

  describe("JobRetried, the one event that reopens an ended job", () => {
    const retried = (retry: number, at = 500): JobEvent => ({ _tag: "JobRetried", v: 1, jobId, retry, attempt: 1, by: "automatic", at })
    const canceled: JobEvent = { _tag: "JobCanceled", v: 1, jobId, at: 400 }

    it("given a failed job, queues it again: error cleared, progress 0, its runs and retries counted", () => {
      const doc = project([queued, started, progressed(40), failed, retried(1)])
      expect(doc).toMatchObject({ status: "queued", progress: 0, error: null, completedAt: null, attempt: 1, startedAt: 200 })
      expect(doc?.retry).toEqual({ number: 1, afterAttempt: 1, by: "automatic", at: 500 })
      expect(endsJob(retried(1))).toBe(false)
    })
    it("is absorbed by a completed or canceled job, and when repeated", () => {
      expect(project([queued, started, completed, retried(1)])?.status).toBe("completed")
      expect(project([queued, started, canceled, retried(1)])?.status).toBe("failed")
      const once = project([queued, started, failed, retried(1), { ...failed, at: 600 }])
      expect(evolveJob(once, retried(1, 700))).toEqual(once)
    })
    it("a document stored before retries existed decodes as never retried", () => {
      const old = project([queued, started, failed])
      if (old === null) throw new Error("no document")
      const decoded = Schema.decodeUnknownSync(JobView)(JSON.parse(JSON.stringify(Schema.encodeSync(JobView)(old))))
      expect(decoded.retry).toBeUndefined()
    })
  })
})
