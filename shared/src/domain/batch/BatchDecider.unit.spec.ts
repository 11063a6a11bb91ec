// Specifications of the batch aggregate: creation, one job per entry, finishing by job, cancel, expiry, and when it is done.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { BatchDecider } from "./BatchDecider.ts"
import type { BatchEvent } from "./BatchEvent.ts"
import { isBatchDone, progressOf } from "./BatchState.ts"
import { parseFormatId } from "../media/FormatId.ts"

const given = DeciderSpecification.for(BatchDecider)
const batchId = "bat_a"
const T0 = 1_000
const LIFETIME = 10_000
const entries = ["e1", "e2", "e3"].map((entryId) => ({ entryId, url: `https://example.com/${entryId}.mp3`, title: entryId }))
/** What the creation command carries and its event records. */
const batch = { batchId, projectId: "prj_a", mediaId: "med_a", platform: "generic", format: parseFormatId("audio_mp3"), entries } as const
const created: BatchEvent = { _tag: "BatchCreated", v: 1, ...batch, createdAt: T0, expiresAt: T0 + LIFETIME }
const queued = (entryId: string, jobId: string, at = T0 + 1): BatchEvent => ({
  _tag: "BatchEntryQueued",
  v: 1,
  batchId,
  entryId,
  jobId,
  at
})
const finished = (entryId: string, jobId: string, outcome: "completed" | "failed" = "completed"): BatchEvent => ({
  _tag: "BatchEntryFinished",
  v: 1,
  batchId,
  entryId,
  jobId,
  outcome,
  at: T0 + 2
})
const canceled: BatchEvent = { _tag: "BatchCanceled", v: 1, batchId, at: T0 + 3 }
const state = (events: ReadonlyArray<BatchEvent>) => foldEvents(BatchDecider, events)

describe("BatchDecider", () => {
  const create = { _tag: "CreateBatch", ...batch, now: T0, lifetimeMs: LIFETIME } as const
  it("creates a batch with its entries in order", () => given([]).when(create).then([created]))
  it("refuses a second creation and an empty batch", () => {
    given([created]).when(create).thenRejects("BatchAlreadyExists")
    given([])
      .when({ ...create, entries: [] })
      .thenRejects("BatchWithoutEntries")
  })
  it("records one job per entry; a second job for the same entry changes nothing", () => {
    given([created])
      .when({ _tag: "RecordEntryQueued", batchId, entryId: "e1", jobId: "job_1", now: T0 + 1 })
      .then([queued("e1", "job_1")])
    given([created, queued("e1", "job_1")])
      .when({ _tag: "RecordEntryQueued", batchId, entryId: "e1", jobId: "job_9", now: T0 + 1 })
      .thenNothing()
    given([created])
      .when({ _tag: "RecordEntryQueued", batchId, entryId: "nope", jobId: "job_1", now: T0 + 1 })
      .thenNothing()
  })
  it("finishes the entry whose job ended, once", () => {
    const finish = { _tag: "RecordEntryFinished", batchId, jobId: "job_1", outcome: "completed", now: T0 + 2 } as const
    given([created, queued("e1", "job_1")])
      .when(finish)
      .then([finished("e1", "job_1")])
    given([created, queued("e1", "job_1"), finished("e1", "job_1")])
      .when(finish)
      .thenNothing()
    given([created]).when(finish).thenNothing()
  })
  it("cancels a running batch once; a finished one is refused; an unknown one is not found", () => {
    const cancel = { _tag: "CancelBatch", batchId, now: T0 + 3 } as const
    given([created, queued("e1", "job_1")])
      .when(cancel)
      .then([canceled])
    given([created, canceled]).when(cancel).thenNothing()
    const all = entries.flatMap((e, i) => [queued(e.entryId, `job_${i}`), finished(e.entryId, `job_${i}`)])
    given([created, ...all])
      .when(cancel)
      .thenRejects("BatchAlreadyFinished")
    given([]).when(cancel).thenRejects("BatchNotFound")
  })
})

describe("expiry and done", () => {
  const expire = { _tag: "ExpireEntries", batchId, now: T0 + LIFETIME } as const
  const expired = (...entryIds: ReadonlyArray<string>): BatchEvent => ({
    _tag: "BatchEntriesExpired",
    v: 1,
    batchId,
    entryIds,
    at: T0 + LIFETIME
  })
  it("at its end, the entries never fed expire; the queued and finished ones are left to their jobs", () => {
    given([created, queued("e1", "job_1"), finished("e1", "job_1"), queued("e2", "job_2")])
      .when(expire)
      .then([expired("e3")])
    given([created])
      .when(expire)
      .then([expired("e1", "e2", "e3")])
  })
  it("expires nothing before the end, twice, or once canceled", () => {
    given([created])
      .when({ ...expire, now: T0 + LIFETIME - 1 })
      .thenNothing()
    given([created, expired("e1", "e2", "e3")])
      .when(expire)
      .thenNothing()
    given([created, canceled]).when(expire).thenNothing()
  })
  it("records a job queued for an entry that expired meanwhile, or after the batch was canceled: the job exists", () => {
    const record = { _tag: "RecordEntryQueued", batchId, entryId: "e3", jobId: "job_3", now: T0 + LIFETIME } as const
    given([created, expired("e3")])
      .when(record)
      .then([queued("e3", "job_3", T0 + LIFETIME)])
    given([created, canceled])
      .when(record)
      .then([queued("e3", "job_3", T0 + LIFETIME)])
  })
  it("is done when every entry finished or expired, or when canceled and nothing runs", () => {
    expect(isBatchDone(state([created, queued("e1", "job_1"), canceled]))).toBe(false)
    expect(isBatchDone(state([created, queued("e1", "job_1"), canceled, finished("e1", "job_1", "failed")]))).toBe(true)
    const all = entries.flatMap((e, i) => [queued(e.entryId, `job_${i}`), finished(e.entryId, `job_${i}`)])
    expect(isBatchDone(state([created, ...all]))).toBe(true)
    expect(isBatchDone(state([created, queued("e1", "job_1"), expired("e2", "e3")]))).toBe(false)
    expect(isBatchDone(state([created, queued("e1", "job_1"), expired("e2", "e3"), finished("e1", "job_1")]))).toBe(true)
    expect(progressOf(state([created, expired("e2", "e3")]), "e2")).toEqual({ _tag: "Expired" })
  })
})
