// Faults against real processes: extractors killed mid-download, a job that kills every worker, NATS and the aggregator
// restarted under load. After each: every job ends completed or failed, no slot stays taken, the read model equals a replay.
import { describe, expect, it } from "vitest"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { finishedEvent, type StoredJobEvent } from "../support/StackInspector.ts"
import { eventuallyDespiteFailures } from "../support/Eventually.ts"
import { apiFor, apiRequest, describeResponse } from "./ApiClient.ts"
import { useMediaStack } from "./MediaStack.ts"

const ACK_WAIT_S = 4
const MAX_ATTEMPTS = 3

const e2e = useMediaStack({
  // 256 KiB/s: the 2.6 MB slow clip takes about ten seconds, long enough to kill a worker in the middle of it.
  throttleBytesPerSecond: 256 * 1024,
  stack: () => ({
    extractors: 2,
    env: { WORK_ACK_WAIT_SECONDS: String(ACK_WAIT_S), WORK_MAX_ATTEMPTS: String(MAX_ATTEMPTS), WORKER_CONCURRENCY: "2" }
  }),
  keys: 0,
  inspect: true
})

const waitFor = <A>(read: () => Promise<A>, done: (a: A) => boolean, what: string, timeoutMs = 60_000): Promise<A> =>
  // Reads fail while NATS restarts; they are simply tried again.
  eventuallyDespiteFailures(read, done, () => `${what}\n${e2e.stack.logs()}`, timeoutMs)

const starts = (events: ReadonlyArray<StoredJobEvent>) => events.flatMap((s) => (s.event._tag === "JobStarted" ? [s.event] : []))

const queueSlow = async (key: string) => {
  const queued = await apiFor(e2e.stack.baseUrl, key).download({ url: e2e.media.urls.slow, format: "video_best" })
  expect(queued.status, e2e.context(queued)).toBe(202)
  return queued.body.data.job_id as string
}

const untilFinished = (projectId: string, jobId: string, timeoutMs = 120_000) =>
  waitFor(
    () => e2e.inspector.jobEvents(projectId, jobId),
    (events) => finishedEvent(events) !== undefined,
    `job ${jobId} to finish`,
    timeoutMs
  )

/** The verdict after every fault: jobs ended (completed or failed), no slot held, read model = replay, API agrees. */
const expectSettled = async (key: string, projectId: string, jobIds: ReadonlyArray<string>) => {
  const ends: Array<JobEvent> = []
  for (const jobId of jobIds) {
    const end = finishedEvent(await untilFinished(projectId, jobId))
    expect(end?._tag, `job ${jobId}`).toMatch(/^Job(Completed|Failed)$/)
    if (end !== undefined) ends.push(end)
  }
  expect(
    await waitFor(
      () => e2e.inspector.heldSlots(projectId),
      (held) => held.length === 0,
      "the project's slots to be free"
    )
  ).toEqual([])
  const mismatches = await waitFor(
    () => e2e.inspector.replayMismatches(projectId),
    (found) => found.length === 0,
    "read model = replay",
    30_000
  )
  expect(mismatches).toEqual([])
  const api = apiFor(e2e.stack.baseUrl, key)
  for (const [i, jobId] of jobIds.entries()) {
    const seen = await api.job(jobId)
    expect(seen.status, describeResponse(seen)).toBe(200)
    expect(seen.body.data.status).toBe(ends[i]?._tag === "JobCompleted" ? "completed" : "failed")
  }
  return ends
}

/** The job's events once its download has made progress. */
const underWay = (projectId: string, jobId: string) =>
  waitFor(
    () => e2e.inspector.jobEvents(projectId, jobId),
    (events) => events.some((s) => s.event._tag === "JobProgressed" && s.event.percent > 0),
    "the download to be under way"
  )

describe("fault tolerance", () => {
  it("an extractor killed (-9) mid-download: the other takes the job over after the ack wait and it completes", async () => {
    const { key, projectId } = await e2e.stack.provisionKey()
    const jobId = await queueSlow(key)
    const running = await underWay(projectId, jobId)
    const victim = starts(running)[0]?.workerId ?? ""
    expect(e2e.stack.labels).toContain(victim)
    await e2e.stack.stopProcess(victim, "SIGKILL")

    const events = await untilFinished(projectId, jobId)
    await e2e.stack.startProcess(victim)
    const [end] = await expectSettled(key, projectId, [jobId])
    expect(end?._tag, JSON.stringify(events.map((s) => s.event))).toBe("JobCompleted")
    const attempts = starts(events)
    expect(attempts.map((s) => s.attempt)).toEqual([1, 2])
    expect(attempts[1]?.workerId).not.toBe(victim)
  })

  it("an extractor stopped with SIGTERM mid-download hands the job back, exits 0, and another worker completes the job", async () => {
    const { key, projectId } = await e2e.stack.provisionKey()
    const jobId = await queueSlow(key)
    const running = await underWay(projectId, jobId)
    const worker = starts(running)[0]?.workerId ?? ""
    await e2e.stack.stopProcess(worker, "SIGTERM")
    const exits = e2e.stack
      .logs()
      .split("\n")
      .filter((line) => line.startsWith(`[harness] ${worker} exited`))
    expect(exits.at(-1), e2e.stack.logs()).toBe(`[harness] ${worker} exited code=0 signal=null`)
    expect(e2e.stack.logs()).toContain("job handed back")
    const events = await untilFinished(projectId, jobId)
    await e2e.stack.startProcess(worker)
    const [end] = await expectSettled(key, projectId, [jobId])
    expect(end?._tag).toBe("JobCompleted")
    expect(starts(events).map((s) => s.workerId)).toEqual([worker, e2e.stack.labels.find((l) => l.startsWith("extractor") && l !== worker)])
  })

  it(`a job that kills every worker it reaches fails after ${MAX_ATTEMPTS} attempts with attempts_exhausted`, async () => {
    const { key, projectId } = await e2e.stack.provisionKey()
    const jobId = await queueSlow(key)
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const events = await waitFor(
        () => e2e.inspector.jobEvents(projectId, jobId),
        (found) => starts(found).some((s) => s.attempt === attempt),
        `attempt ${attempt} to start`,
        90_000
      )
      const victim = starts(events).find((s) => s.attempt === attempt)?.workerId ?? ""
      await e2e.stack.stopProcess(victim, "SIGKILL")
      await e2e.stack.startProcess(victim)
    }
    const [end] = await expectSettled(key, projectId, [jobId])
    expect(end?._tag === "JobFailed" && end.error).toMatchObject({ code: "attempts_exhausted", retryable: false })
    expect(starts(await e2e.inspector.jobEvents(projectId, jobId))).toHaveLength(MAX_ATTEMPTS)
  })

  it("nats-server restarts while jobs are queued and running: every job ends and nothing is lost", async () => {
    const projects = await Promise.all([e2e.stack.provisionKey(), e2e.stack.provisionKey(), e2e.stack.provisionKey()])
    const jobs = await Promise.all(projects.map(async (p) => ({ ...p, jobIds: [await queueSlow(p.key), await queueSlow(p.key)] })))
    const all = jobs.flatMap((p) => p.jobIds.map((jobId) => ({ projectId: p.projectId, jobId })))
    // Four run (two extractors, two each); two wait in the work queue.
    await waitFor(
      async () =>
        (await Promise.all(all.map((j) => e2e.inspector.jobEvents(j.projectId, j.jobId)))).filter((e) => starts(e).length > 0).length,
      (running) => running >= 2,
      "jobs to be running"
    )
    await e2e.stack.nats.stop()
    // Down until the services noticed: the gateway answers 503 degraded.
    await waitFor(
      async () => (await apiRequest(e2e.stack.baseUrl, "GET", "/health")).status,
      (status) => status === 503,
      "the gateway to notice the outage"
    )
    await e2e.stack.nats.start()

    const ends = (await Promise.all(jobs.map((p) => expectSettled(p.key, p.projectId, p.jobIds)))).flat()
    expect(ends).toHaveLength(6)
    // The outage costs at most a restart of the runs it interrupted: the jobs complete.
    const failures = ends.flatMap((e) => (e._tag === "JobFailed" ? [e.error] : []))
    expect(
      failures.filter((error) => error.code !== "attempts_exhausted"),
      JSON.stringify(failures)
    ).toEqual([])
  })

  it("the aggregator killed (-9) while jobs progress: the read model catches up and equals a replay", async () => {
    const { key, projectId } = await e2e.stack.provisionKey()
    const jobIds = [await queueSlow(key), await queueSlow(key)]
    const started = await waitFor(
      () => e2e.inspector.jobEvents(projectId, jobIds[0] ?? ""),
      (events) => starts(events).length > 0,
      "a job to start"
    )
    await e2e.stack.stopProcess("aggregator", "SIGKILL")
    // Down while the job progresses: the read model has events to catch up on once it is back.
    const lastSeq = started.at(-1)?.seq ?? 0
    await waitFor(
      () => e2e.inspector.jobEvents(projectId, jobIds[0] ?? ""),
      (events) => events.some((s) => s.seq > lastSeq && s.event._tag === "JobProgressed"),
      "the job to progress while the aggregator is down"
    )
    await e2e.stack.startProcess("aggregator")
    const ends = await expectSettled(key, projectId, jobIds)
    expect(ends.map((e) => e._tag)).toEqual(["JobCompleted", "JobCompleted"])
  })
})
