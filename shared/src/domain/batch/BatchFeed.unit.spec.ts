// Specifications of the batch feeder's reaction: given a batch, its entries' jobs and the project's slots, when woken, then these commands.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import type { SlotReleaseReason } from "../admission/AdmissionEvent.ts"
import { isTerminal, type JobStatus } from "../job/JobState.ts"
import { BatchDecider } from "./BatchDecider.ts"
import type { BatchEvent } from "./BatchEvent.ts"
import { entriesToLookUp, type FeedCommand, type FeedGate, type FeedTrigger, react } from "./BatchFeed.ts"
import { parseFormatId } from "../media/FormatId.ts"

const batchId = "bat_a"
const T0 = 1_000
const LIFETIME = 10_000
const entries = ["e1", "e2", "e3"].map((entryId) => ({ entryId, url: `https://example.com/${entryId}.mp3`, title: entryId }))
const created: BatchEvent = {
  _tag: "BatchCreated",
  v: 1,
  batchId,
  projectId: "prj_a",
  mediaId: "med_a",
  platform: "generic",
  format: parseFormatId("audio_mp3"),
  entries,
  createdAt: T0,
  expiresAt: T0 + LIFETIME
}
const jobOf = (entryId: string) => `job_${entryId}`
const queued = (entryId: string): BatchEvent => ({ _tag: "BatchEntryQueued", v: 1, batchId, entryId, jobId: jobOf(entryId), at: T0 + 1 })
const finished = (entryId: string, outcome: "completed" | "failed" = "completed"): BatchEvent => ({
  _tag: "BatchEntryFinished",
  v: 1,
  batchId,
  entryId,
  jobId: jobOf(entryId),
  outcome,
  at: T0 + 2
})
const canceled: BatchEvent = { _tag: "BatchCanceled", v: 1, batchId, at: T0 + 3 }

interface World {
  /** The status of each looked-up entry's job. */
  readonly jobs?: Readonly<Record<string, JobStatus>>
  /** Entries whose job was canceled while its run went on: the run's worker frees the slot, nobody else. */
  readonly stillRunning?: ReadonlyArray<string>
  readonly held?: ReadonlyArray<string>
  readonly limit?: number
  /** What the batch's subscription lets (absent: a batch of its own, open). */
  readonly gate?: FeedGate
}

/** What slotReleaseOf says of a job in that status (a canceled one whose run still goes keeps its slot). */
const slotReleaseFor = (entryId: string, status: JobStatus, stillRunning: ReadonlyArray<string>): SlotReleaseReason | null => {
  if (!isTerminal(status) || (status === "canceled" && stillRunning.includes(entryId))) return null
  return status === "completed" || status === "expired" || status === "canceled" ? status : "failed"
}

const at = (now: number, tag: FeedTrigger["_tag"] = "Reconcile"): FeedTrigger => ({ _tag: tag, now })
const DURING = at(T0 + 5)

const given = (events: ReadonlyArray<BatchEvent>, world: World = {}) => {
  const state = {
    batch: foldEvents(BatchDecider, events),
    jobs: Object.fromEntries(
      Object.entries(world.jobs ?? {}).map(([entryId, status]) => [
        entryId,
        { jobId: jobOf(entryId), status, slotRelease: slotReleaseFor(entryId, status, world.stillRunning ?? []) }
      ])
    ),
    held: world.held ?? [],
    limit: world.limit ?? 2,
    ...(world.gate === undefined ? {} : { gate: world.gate })
  }
  return {
    when: (trigger: FeedTrigger) => ({
      then: (expected: ReadonlyArray<FeedCommand>) => expect(react(state, trigger)).toEqual(expected),
      thenNothing: () => expect(react(state, trigger)).toEqual([])
    })
  }
}

const start = (entryId: string): FeedCommand => ({ _tag: "StartEntry", entryId, jobId: jobOf(entryId) })
const none = { e1: "none", e2: "none", e3: "none" } as const

describe("BatchFeed.react", () => {
  it("starts the first pending entries into the project's free slots, in order", () => {
    given([created], { jobs: none })
      .when(DURING)
      .then([start("e1"), start("e2")])
    given([created], { jobs: none, held: ["job_other"] })
      .when(DURING)
      .then([start("e1")])
  })

  it("a job's end seen while its slot is still held starts nothing; the slot's release then starts the next entry", () => {
    const before = { jobs: none, held: ["job_x", "job_y"] }
    given([created], before)
      .when(at(T0 + 5, "JobEnded"))
      .thenNothing()
    given([created], { ...before, held: ["job_x"] })
      .when(at(T0 + 6, "SlotReleased"))
      .then([start("e1")])
  })

  it("decides the same whatever woke it", () => {
    for (const tag of ["BatchRecorded", "JobEnded", "SlotReleased", "Reconcile"] as const) {
      given([created, queued("e1")], { jobs: { e1: "completed", e2: "none", e3: "none" }, held: ["job_x"] })
        .when(at(T0 + 5, tag))
        .then([{ _tag: "RecordEntryFinished", entryId: "e1", jobId: "job_e1", outcome: "completed" }, start("e2")])
    }
  })

  it("finishes an entry with its job's end; canceled, failed and expired jobs are failed entries", () => {
    for (const status of ["failed", "expired", "canceled"] as const) {
      given([created, queued("e1"), queued("e2")], { jobs: { e1: status, e2: "processing", e3: "none" }, held: ["job_e2"] })
        .when(DURING)
        .then([{ _tag: "RecordEntryFinished", entryId: "e1", jobId: "job_e1", outcome: "failed" }, start("e3")])
    }
  })

  it("an entry whose job ended before its record was stored is recorded, finished, and its re-claimed slot freed", () => {
    given([created], { jobs: { e1: "completed", e2: "none" }, held: ["job_e1", "job_x"] })
      .when(DURING)
      .then([
        { _tag: "RecordEntryQueued", entryId: "e1", jobId: "job_e1", resendWork: false },
        { _tag: "RecordEntryFinished", entryId: "e1", jobId: "job_e1", outcome: "completed" },
        { _tag: "ReleaseSlot", jobId: "job_e1", reason: "completed" },
        start("e2")
      ])
  })

  it("an entry whose job is still waiting or running is recorded without a second job; a waiting one gets its work again", () => {
    given([created], { jobs: { e1: "queued", e2: "processing" }, held: ["job_e1", "job_e2"] })
      .when(DURING)
      .then([
        { _tag: "RecordEntryQueued", entryId: "e1", jobId: "job_e1", resendWork: true },
        { _tag: "RecordEntryQueued", entryId: "e2", jobId: "job_e2", resendWork: false }
      ])
  })

  it("frees a slot still held by the job of a finished entry", () => {
    given([created, queued("e1"), finished("e1")], { jobs: { e1: "completed", e2: "none", e3: "none" }, held: ["job_e1", "job_x"] })
      .when(DURING)
      .then([{ _tag: "ReleaseSlot", jobId: "job_e1", reason: "completed" }, start("e2")])
  })

  it("a canceled job whose run still goes keeps its slot: its worker frees it once the run stopped", () => {
    given([created, queued("e1"), canceled], { jobs: { e1: "canceled" }, stillRunning: ["e1"], held: ["job_e1"] })
      .when(DURING)
      .then([{ _tag: "RecordEntryFinished", entryId: "e1", jobId: "job_e1", outcome: "failed" }])
  })

  it("a canceled batch cancels its running jobs, also one recorded after the cancel, and starts nothing", () => {
    given([created, queued("e1"), canceled], { jobs: { e1: "processing", e2: "none", e3: "none" }, held: ["job_e1"] })
      .when(DURING)
      .then([{ _tag: "CancelEntryJob", entryId: "e1", jobId: "job_e1" }])
    given([created, canceled, queued("e2")], { jobs: { e1: "none", e2: "queued", e3: "none" }, held: ["job_e2"] })
      .when(DURING)
      .then([{ _tag: "CancelEntryJob", entryId: "e2", jobId: "job_e2" }])
    given([created, canceled], { jobs: { e1: "queued", e2: "none", e3: "none" } })
      .when(DURING)
      .then([
        { _tag: "RecordEntryQueued", entryId: "e1", jobId: "job_e1", resendWork: true },
        { _tag: "CancelEntryJob", entryId: "e1", jobId: "job_e1" }
      ])
    given([created, queued("e1"), canceled], { jobs: { e1: "canceled" }, held: ["job_e1"] })
      .when(DURING)
      .then([
        { _tag: "RecordEntryFinished", entryId: "e1", jobId: "job_e1", outcome: "failed" },
        { _tag: "ReleaseSlot", jobId: "job_e1", reason: "canceled" }
      ])
  })

  it("past the batch's end it starts nothing and expires the entries never fed, after recording any job they have", () => {
    const end = at(T0 + LIFETIME)
    given([created, queued("e1")], { jobs: { e1: "processing", e2: "none", e3: "none" }, held: ["job_e1"] })
      .when(end)
      .then([{ _tag: "ExpireEntries" }])
    given([created], { jobs: { e1: "queued", e2: "none" } })
      .when(end)
      .then([{ _tag: "RecordEntryQueued", entryId: "e1", jobId: "job_e1", resendWork: true }, { _tag: "ExpireEntries" }])
    given([created, queued("e1"), queued("e2"), queued("e3")], { jobs: { e1: "processing", e2: "queued", e3: "queued" } })
      .when(end)
      .thenNothing()
  })

  it("does nothing for a batch it cannot read, or for entries whose job it did not look up", () => {
    given([], { jobs: none }).when(DURING).thenNothing()
    given([created]).when(DURING).thenNothing()
  })
})

describe("BatchFeed.react for a subscription's batch", () => {
  it("held (its subscription paused, or its check not recorded yet) starts nothing, but still finishes and expires entries", () => {
    given([created], { jobs: none, gate: "held" }).when(DURING).thenNothing()
    given([created, queued("e1")], { jobs: { ...none, e1: "completed" }, gate: "held" })
      .when(DURING)
      .then([{ _tag: "RecordEntryFinished", entryId: "e1", jobId: jobOf("e1"), outcome: "completed" }])
    given([created], { jobs: none, gate: "held" })
      .when(at(T0 + LIFETIME))
      .then([{ _tag: "ExpireEntries" }])
  })

  it("closed (its subscription removed) cancels the batch, whose running jobs are then canceled", () => {
    given([created, queued("e1")], { jobs: { ...none, e1: "processing" }, gate: "closed" })
      .when(DURING)
      .then([{ _tag: "CancelBatch" }])
    given([created, queued("e1"), canceled], { jobs: { ...none, e1: "processing" }, gate: "closed" })
      .when(DURING)
      .then([{ _tag: "CancelEntryJob", entryId: "e1", jobId: jobOf("e1") }])
  })

  it("open feeds it like any batch", () => {
    given([created], { jobs: none, gate: "open" })
      .when(DURING)
      .then([start("e1"), start("e2")])
  })
})

describe("entriesToLookUp", () => {
  it("the queued entries, the first pending ones that could hold a slot, and finished ones still holding one", () => {
    const batch = foldEvents(BatchDecider, [created, queued("e2")])
    expect(entriesToLookUp(batch, [], 2)).toEqual(["e2", "e1", "e3"])
    expect(entriesToLookUp(batch, [], 1)).toEqual(["e2", "e1"])
    const oneFinished = foldEvents(BatchDecider, [created, queued("e1"), finished("e1")])
    expect(entriesToLookUp(oneFinished, [], 2)).toEqual(["e2", "e3"])
    expect(entriesToLookUp(oneFinished, ["job_e1"], 1)).toEqual(["e2", "e1"])
  })
})
