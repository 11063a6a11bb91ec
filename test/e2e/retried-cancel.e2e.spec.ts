// End to end: a retried job canceled before its new try started frees its slot at once, so a project with one job
// running is not refused 429 (issue 28, defect 3: the slot was kept whenever the job had run before).
import { describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { type ApiResponse, apiRequest } from "./ApiClient.ts"
import { useMediaStack } from "./MediaStack.ts"

/** clip.mp4 (about 100 kB) at this rate takes about 2 s: the only worker stays busy while the client retries and cancels. */
const SLOW_BYTES_PER_SECOND = 50_000

const e2e = useMediaStack({
  stack: () => ({
    env: {
      // One run at a time: a retried job waits while another runs.
      WORKER_CONCURRENCY: "1",
      // Nothing retries on its own: the only retry is the client's, and a 503 fails its run at once.
      JOB_AUTO_RETRIES: "0",
      DOWNLOAD_RETRIES: "0",
      // The test polls its jobs faster than the spec's 2 s, to wait on conditions without waiting out intervals.
      API_MIN_POLL_INTERVAL_SECONDS: "0"
    }
  }),
  inspect: true
})

const jobIdOf = (response: ApiResponse) => {
  expect(response.status, e2e.context(response)).toBe(202)
  return response.body.data.job_id as string
}

const untilJob = (jobId: string, done: (job: any) => boolean, what: string, timeoutMs = 30_000) =>
  eventually(
    () => e2e.api.job(jobId),
    (response) => response.status === 200 && done(response.body.data),
    () => `${what}\n${e2e.stack.logs()}`,
    timeoutMs
  ).then((response) => response.body.data)

describe("canceling a retried job", () => {
  it("a retried job canceled before its new try started frees its slot: the next download is accepted, not 429", async () => {
    const b = jobIdOf(await e2e.api.download({ url: e2e.media.urls.flaky("retried-cancel", 1_000_000), format: "video_best" }))
    const failed = await untilJob(b, (job) => job.status === "failed", "job B to fail")
    expect([failed.error?.code, failed.error?.retryable], JSON.stringify(failed)).toEqual(["download_failed", true])

    // A takes the only worker; B's retry then waits behind it.
    const a = jobIdOf(await e2e.api.download({ url: `${e2e.media.urls.mp4}?rate=${SLOW_BYTES_PER_SECOND}`, format: "video_best" }))
    await untilJob(a, (job) => job.status === "processing", "job A to start")

    const retried = await apiRequest(e2e.stack.baseUrl, "POST", `/jobs/${b}/retry`, { key: e2e.key })
    expect(retried.status, e2e.context(retried)).toBe(202)
    expect(retried.body.data, e2e.context(retried)).toMatchObject({ status: "queued", retries: 1, attempts: 1 })

    const canceled = await apiRequest(e2e.stack.baseUrl, "DELETE", `/jobs/${b}`, { key: e2e.key })
    expect(canceled.status, e2e.context(canceled)).toBe(200)
    expect(canceled.body.data, e2e.context(canceled)).toMatchObject({ status: "failed", error: { code: "canceled" }, attempts: 1 })

    // Held: A's slot only. Before the fix B's new try kept the other one, and this was 429 concurrency_limit_exceeded.
    const next = await e2e.api.download({ url: e2e.media.urls.mp4, format: "video_best" })
    // Meaningful only while A still holds its slot: had A ended already, its own slot would have let C in.
    const aMeanwhile = await e2e.api.job(a)
    expect(aMeanwhile.body?.data?.status, `A ended before C was asked for; slow A down\n${e2e.context(aMeanwhile)}`).toBe("processing")
    const c = jobIdOf(next)

    // A and C complete; B's waiting work message is dropped without a run (C's comes after it on the one worker).
    const completed = (job: any) => job.status === "completed" || job.status === "failed"
    expect((await untilJob(a, completed, "job A to end")).status).toBe("completed")
    expect((await untilJob(c, completed, "job C to end")).status).toBe("completed")
    const bAfter = (await e2e.api.job(b)).body.data
    expect(bAfter, JSON.stringify(bAfter)).toMatchObject({ status: "failed", error: { code: "canceled" }, retries: 1, attempts: 1 })
    const bStarts = (await e2e.inspector.jobEvents(e2e.projectId, b)).filter((stored) => stored.event._tag === "JobStarted")
    expect(bStarts.length, JSON.stringify(bStarts)).toBe(1)
    expect(await e2e.inspector.queuedWork()).toEqual([])
    const held = await eventually(
      () => e2e.inspector.heldSlots(e2e.projectId),
      (slots) => slots.length === 0,
      () => `the project's slots to be free\n${e2e.stack.logs()}`
    )
    expect(held).toEqual([])
  })
})
