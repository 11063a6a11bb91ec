// Per-platform pacing across the fleet: with two extractor processes and PLATFORM_MAX_CONCURRENT generic=1 no two
// generic downloads ever run at once, and PLATFORM_MAX_STARTS_PER_MINUTE generic=2 holds in every 60 s; jobs that
// wait stay queued and all complete.
import { describe, expect, it } from "vitest"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { eventually } from "../support/Eventually.ts"
import { finishedEvent } from "../support/StackInspector.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { pollJobUntilFinished } from "./JobPolling.ts"
import { useMediaStack } from "./MediaStack.ts"

const JOBS = 3

const e2e = useMediaStack({
  stack: () => ({
    extractors: 2,
    env: {
      PLATFORM_MAX_CONCURRENT: "generic=1",
      PLATFORM_MAX_STARTS_PER_MINUTE: "generic=2",
      PACING_RETRY_SECONDS: "1",
      // Few runs allowed: a job handed back by pacing many times must still not count as attempts_exhausted.
      WORK_MAX_ATTEMPTS: "2"
    }
  }),
  keys: 0,
  inspect: true
})

describe("platform pacing", () => {
  it("runs one generic download at a time across two extractors, at most two starts a minute, none failing", async () => {
    // One project each: the per-project limit must not be what holds the jobs back. Each clip takes a few seconds.
    const jobs = await Promise.all(
      Array.from({ length: JOBS }, async (_, i) => {
        const { key, projectId } = await e2e.stack.provisionKey()
        const response = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
          key,
          json: { url: `${e2e.media.urls.mp4}?rate=${256 * 1024}&n=${i}`, format: "video_best" }
        })
        expect(response.status, describeResponse(response)).toBe(202)
        return { key, projectId, jobId: response.body.data.job_id as string }
      })
    )

    // Two run one after the other; the third then waits for the minute to pass, as a queued job (never failed).
    // Watched in the job streams (the API refuses polls faster than every 2 s), then read once through the API.
    await eventually(
      () => Promise.all(jobs.map(async (job) => finishedEvent(await e2e.inspector.jobEvents(job.projectId, job.jobId))?._tag)),
      (ends) => ends.filter((tag) => tag !== undefined).length >= 2,
      () => `two jobs to end\n${e2e.stack.logs()}`,
      120_000
    )
    const statusOf = async (job: (typeof jobs)[number]) =>
      (await apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${job.jobId}`, { key: job.key })).body.data.status as string
    // Every 2 s at most: faster polling is refused (polling_too_fast).
    const statuses = await eventually(
      () => Promise.all(jobs.map(statusOf)),
      (now) => now.filter((s) => s === "completed").length >= 2,
      "two jobs read as completed",
      10_000,
      2_100
    )
    expect(statuses.filter((s) => s === "completed").length, `${statuses}\n${e2e.stack.logs()}`).toBe(2)
    expect(statuses.filter((s) => s === "queued").length, `${statuses}`).toBe(1)

    for (const job of jobs) {
      const outcome = await pollJobUntilFinished(e2e.stack.baseUrl, job.key, job.jobId, { timeoutMs: 150_000, logs: e2e.stack.logs })
      expect(outcome.job?.status, `${JSON.stringify(outcome)}\n${e2e.stack.logs()}`).toBe("completed")
    }

    const runs = await Promise.all(
      jobs.map(async (job) => {
        const events = (await e2e.inspector.jobEvents(job.projectId, job.jobId)).map((stored) => stored.event)
        const started = events.filter((e): e is Extract<JobEvent, { _tag: "JobStarted" }> => e._tag === "JobStarted")
        const completed = events.find((e) => e._tag === "JobCompleted")
        expect(started.length, JSON.stringify(events)).toBe(1)
        return { start: started[0]!.at, end: completed!.at, worker: started[0]!.workerId }
      })
    )
    runs.sort((a, b) => a.start - b.start)
    // Never two at once: each run starts after the one before it ended.
    for (let i = 1; i < runs.length; i++) expect(runs[i]!.start, JSON.stringify(runs)).toBeGreaterThanOrEqual(runs[i - 1]!.end)
    // Never three starts within 60 s: the third waited for the first start's minute to pass.
    expect(runs[2]!.start - runs[0]!.start, JSON.stringify(runs)).toBeGreaterThanOrEqual(60_000)
  }, 240_000)
})
