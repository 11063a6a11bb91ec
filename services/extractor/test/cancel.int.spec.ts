// Canceling a running download through the real extractor: yt-dlp (and its ffmpeg) stop, files go, the slot frees.
import { execFile } from "node:child_process"
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { promisify } from "node:util"
import { jetstreamManager } from "@nats-io/jetstream"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { admissionSubject, jobSubject } from "@mds/shared/nats/Subjects"
import { eventually } from "../../../test/support/Eventually.ts"
import { mediaAndExtractor } from "./ExtractorHarness.ts"

const execFileAsync = promisify(execFile)

const stack = mediaAndExtractor()

const waitUntil = <A>(read: () => Promise<A>, done: (a: A) => boolean, what: string, timeoutMs = 60_000): Promise<A> =>
  eventually(read, done, what, timeoutMs)

/** The project's last admission event, read over the test's own connection (it works while the relay is cut). */
const ownAdmission = async (projectId: string) =>
  Option.getOrThrow(
    await stack.harness.runOwn(
      Effect.gen(function* () {
        return yield* (yield* EventStore).readLast(AdmissionEvent, admissionSubject(projectId))
      })
    )
  ).event

/**
 * The job's run: the processes whose command line names the job (yt-dlp gets its work directory, named after the job,
 * as --paths; curl and ffmpeg their files in it) and every member of their process groups, which holds a warm run's
 * yt-dlp too (a fork of the warm runner, with the runner's command line).
 */
const processesOf = async (jobId: string) => {
  const { stdout } = await execFileAsync("ps", ["-eo", "pid=,pgid=,args="])
  const rows = stdout
    .split("\n")
    .filter((line) => !line.includes("ps -eo"))
    .map((line) => ({ line, pgid: line.trim().split(/\s+/)[1] ?? "" }))
  const groups = new Set(rows.filter((row) => row.line.includes(jobId)).map((row) => row.pgid))
  return rows.filter((row) => groups.has(row.pgid)).map((row) => row.line)
}

const workDirsOf = async (jobId: string) =>
  (await readdir(join(stack.harness.dataDir, "work")).catch(() => [] as Array<string>)).filter((name) => name.startsWith(jobId))

/** Waits (15 s at most) until the job's processes (`what`) have ended and its work directory is gone. */
const untilCleanedUp = async (jobId: string, what: string) => {
  await waitUntil(
    () => processesOf(jobId),
    (lines) => lines.length === 0,
    `${what} to end`,
    15_000
  )
  await waitUntil(
    () => workDirsOf(jobId),
    (dirs) => dirs.length === 0,
    "the work directory to be removed",
    15_000
  )
}

describe("cancel", () => {
  it("stops a processing download at once: yt-dlp killed, partial files removed, slot released, job canceled", async () => {
    // 2.6 MB at 64 KiB/s: about 40 s, so the job is surely mid-download when it is canceled.
    const { projectId, jobId } = await stack.harness.queueJob(`${stack.media.urls.slow}?rate=65536`, "video_best")
    await waitUntil(
      () => stack.harness.jobEvents(projectId, jobId),
      (events) => events.some((e) => e._tag === "JobProgressed"),
      "progress"
    )
    expect((await processesOf(jobId)).length, "yt-dlp runs for the job").toBeGreaterThan(0)
    expect(await workDirsOf(jobId)).toHaveLength(1)

    await stack.harness.cancelJob(projectId, jobId)

    await untilCleanedUp(jobId, "the job's processes")
    const admission = await waitUntil(
      () => stack.harness.lastAdmission(projectId),
      (e) => e._tag === "SlotReleased",
      "the slot release",
      15_000
    )
    expect(admission).toMatchObject({ _tag: "SlotReleased", jobId, reason: "canceled", held: [] })
    const events = await stack.harness.jobEvents(projectId, jobId)
    expect(events.map((e) => e._tag)).toContain("JobCanceled")
    expect(events.some((e) => e._tag === "JobCompleted" || e._tag === "JobFailed")).toBe(false)
    expect(events.at(-1)?._tag).toBe("JobCanceled")
  })

  it("a cancel whose message the worker never got is seen from the job's stream; the slot stays held until the run stopped", async () => {
    // 2.6 MB at 32 KiB/s: about 80 s, far beyond the waits below, so only a seen cancel ends the run in time.
    const { projectId, jobId } = await stack.harness.queueJob(`${stack.media.urls.slow}?rate=32768`, "video_best")
    await waitUntil(
      () => stack.harness.jobEvents(projectId, jobId),
      (events) => events.some((e) => e._tag === "JobProgressed"),
      "progress"
    )
    // The worker's connection drops (as in a failover): the cancel's message on the job's subject never reaches it.
    stack.harness.relay.cut()
    try {
      await stack.harness.cancelJob(projectId, jobId)
      expect((await processesOf(jobId)).length, "the run goes on while its worker cannot know").toBeGreaterThan(0)
      expect(await ownAdmission(projectId), "a started run keeps its slot").toMatchObject({ _tag: "SlotClaimed", held: [{ jobId }] })
    } finally {
      stack.harness.relay.restore()
    }

    // Back on NATS, the worker reads the job's state (every second) and stops the run; only then is the slot freed.
    // Read over the test's own connection: the extractor's may still be reconnecting.
    const admission = await waitUntil(
      () => ownAdmission(projectId),
      (e) => e._tag === "SlotReleased",
      "the slot release",
      15_000
    )
    expect(await processesOf(jobId), "no process of the run is left once its slot is free").toEqual([])
    expect(admission).toMatchObject({ _tag: "SlotReleased", jobId, reason: "canceled", held: [] })
    await untilCleanedUp(jobId, "the job's processes")
    const events = await stack.harness.runOwn(
      Effect.gen(function* () {
        return yield* (yield* EventStore).readSubject(JobEvent, jobSubject(projectId, jobId))
      })
    )
    const tags = events.map((stored) => stored.event._tag)
    expect(tags.at(-1)).toBe("JobCanceled")
    expect(tags.filter((tag) => tag === "JobCompleted" || tag === "JobFailed")).toEqual([])
  })

  it("stops the ffmpeg that cuts a clip too", async () => {
    const { projectId, jobId } = await stack.harness.queueJob(
      `${stack.media.urls.slow}?rate=65536`,
      "video_best",
      undefined,
      undefined,
      undefined,
      {
        section: { start: 1, end: 19, precise: true }
      }
    )
    await waitUntil(
      () => processesOf(jobId),
      // The program and its first argument, after the pid: ps pads a short pid with spaces (a pid under 1,000, after
      // the numbers wrapped, left the program out of the first three space-separated fields, and the wait ran out).
      (lines) => lines.some((line) => /ffmpeg/.test(line.trim().split(/\s+/).slice(1, 3).join(" "))),
      "ffmpeg to run"
    )
    await stack.harness.cancelJob(projectId, jobId)
    await untilCleanedUp(jobId, "yt-dlp and ffmpeg")
    expect((await stack.harness.jobEvents(projectId, jobId)).at(-1)?._tag).toBe("JobCanceled")
  })

  it("a job canceled while queued is never started by a worker", async () => {
    // Both worker slots busy with slow downloads, so the third job waits on the queue.
    const busy = await Promise.all([1, 2].map(() => stack.harness.queueJob(`${stack.media.urls.slow}?rate=65536`, "video_best")))
    for (const job of busy) {
      await waitUntil(
        () => stack.harness.jobEvents(job.projectId, job.jobId),
        (events) => events.some((e) => e._tag === "JobStarted"),
        "busy job start"
      )
    }
    const { projectId, jobId } = await stack.harness.queueJob(stack.media.urls.mp4, "video_best")
    await stack.harness.cancelJob(projectId, jobId)
    for (const job of busy) await stack.harness.cancelJob(job.projectId, job.jobId)
    // Once the busy jobs stop, a worker takes the canceled job off the queue and drops it without starting it.
    await waitUntil(
      () => processesOf(busy[0]!.jobId),
      (lines) => lines.length === 0,
      "the busy jobs to stop",
      15_000
    )
    const jsm = await jetstreamManager(stack.harness.client)
    await waitUntil(
      async () => (await jsm.streams.info("MDS_WORK")).state.messages,
      (n) => n === 0,
      "the work queue to drain",
      30_000
    )
    const events = await stack.harness.jobEvents(projectId, jobId)
    expect(events.map((e) => e._tag)).toEqual(["JobQueued", "JobCanceled"])
  })
})
