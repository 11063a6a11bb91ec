// Specifications of what becomes of a subscription's entry: read from its batch and job, done (downloaded, given up with a
// reason) or waiting for the next check; a failed run is tried once more, an entry never started is not counted.
import { describe, expect, it } from "vitest"
import { foldEvents } from "../Decider.ts"
import { BatchDecider } from "../batch/BatchDecider.ts"
import type { BatchEvent } from "../batch/BatchEvent.ts"
import type { JobView } from "../job/JobView.ts"
import { ENTRY_TRIES, type EntrySighting, settle, sightingOf, UNFED_AFTER_END_MS } from "./EntryOutcomes.ts"
import type { TrackedEntry } from "./SubscriptionState.ts"
import { parseFormatId } from "../media/FormatId.ts"

const T0 = 1_767_225_600_000
const END = T0 + 3_600_000
const created: BatchEvent = {
  _tag: "BatchCreated",
  v: 1,
  batchId: "bat_1",
  projectId: "prj_a",
  mediaId: "med_a",
  platform: "generic",
  format: parseFormatId("audio_mp3"),
  subscriptionId: "sub_a",
  entries: [{ entryId: "ent_a", url: "https://a.example/a.mp3", title: "A" }],
  createdAt: T0,
  expiresAt: END
}
const batch = (...events: ReadonlyArray<BatchEvent>) => foldEvents(BatchDecider, [created, ...events])
const queued: BatchEvent = { _tag: "BatchEntryQueued", v: 1, batchId: "bat_1", entryId: "ent_a", jobId: "job_a", at: T0 + 1 }
const expired: BatchEvent = { _tag: "BatchEntriesExpired", v: 1, batchId: "bat_1", entryIds: ["ent_a"], at: END }
const canceled: BatchEvent = { _tag: "BatchCanceled", v: 1, batchId: "bat_1", at: T0 + 5 }

const job = (status: JobView["status"], code: string | null = null): JobView => ({
  id: "job_a",
  projectId: "prj_a",
  status,
  progress: 0,
  platform: "generic",
  format: parseFormatId("audio_mp3"),
  source: { url: "https://a.example/a.mp3", mediaId: null },
  attempt: 1,
  createdAt: T0 + 1,
  expiresAt: END + 10_000,
  startedAt: null,
  completedAt: null,
  artifact: null,
  error: code === null ? null : ({ code, message: `failed: ${code}`, retryable: false } as JobView["error"]),
  lastSeq: 3
})

const entry = (failures = 0): TrackedEntry => ({
  archiveKey: "generic a",
  entryId: "ent_a",
  url: "https://a.example/a.mp3",
  title: "A",
  failures,
  batchId: "bat_1",
  waitingFor: null
})

describe("sightingOf", () => {
  it("a completed job is a download; a canceled job or batch is canceled", () => {
    expect(sightingOf(batch(queued), "ent_a", job("completed"), T0 + 9)).toEqual({ _tag: "Completed", jobId: "job_a" })
    expect(sightingOf(batch(queued), "ent_a", job("failed", "canceled"), T0 + 9)).toEqual({ _tag: "Canceled", jobId: "job_a" })
    expect(sightingOf(batch(canceled), "ent_a", null, T0 + 9)).toEqual({ _tag: "Canceled", jobId: null })
  })

  it("a retryable failure is in flight while the job lives (a retry may still run it), then a failure to try again", () => {
    expect(sightingOf(batch(queued), "ent_a", job("failed", "download_failed"), T0 + 9)).toEqual({ _tag: "InFlight" })
    expect(sightingOf(batch(queued), "ent_a", job("failed", "download_failed"), END + 10_000)).toMatchObject({
      _tag: "Failed",
      retryable: true,
      error: { code: "download_failed" }
    })
    expect(sightingOf(batch(queued), "ent_a", job("expired"), T0 + 9)).toMatchObject({ _tag: "Failed", retryable: true })
  })

  it("a failure that another try would repeat is final at once; the month's quota holds the entry back instead", () => {
    expect(sightingOf(batch(queued), "ent_a", job("failed", "media_unavailable"), T0 + 9)).toMatchObject({
      _tag: "Failed",
      retryable: false
    })
    expect(sightingOf(batch(queued), "ent_a", job("failed", "quota_exceeded"), T0 + 9)).toMatchObject({ _tag: "Held" })
  })

  it("an entry never started is unfed once its batch ended (and a feed racing the end is over); before, in flight", () => {
    expect(sightingOf(batch(), "ent_a", null, T0 + 9)).toEqual({ _tag: "InFlight" })
    expect(sightingOf(batch(expired), "ent_a", null, END + 1)).toEqual({ _tag: "InFlight" })
    expect(sightingOf(batch(expired), "ent_a", null, END + UNFED_AFTER_END_MS)).toEqual({ _tag: "Unfed" })
    expect(sightingOf(batch(), "ent_a", null, END + UNFED_AFTER_END_MS)).toEqual({ _tag: "Unfed" })
  })

  it("queued or running is in flight; neither batch nor job kept any more is unknown", () => {
    expect(sightingOf(batch(queued), "ent_a", job("processing"), T0 + 9)).toEqual({ _tag: "InFlight" })
    expect(sightingOf(foldEvents(BatchDecider, []), "ent_a", null, T0 + 9)).toEqual({ _tag: "Unknown" })
  })
})

describe("settle", () => {
  const outcomeOf = (sighting: EntrySighting, failures = 0) => settle([entry(failures)], new Map([["generic a", sighting]]))
  const failed = (retryable: boolean): EntrySighting => ({
    _tag: "Failed",
    jobId: "job_a",
    error: { code: retryable ? "download_failed" : "media_unavailable", message: "x" },
    retryable
  })

  it("a download is done; in flight records nothing", () => {
    expect(outcomeOf({ _tag: "Completed", jobId: "job_a" })).toEqual([
      { archiveKey: "generic a", batchId: "bat_1", result: "downloaded", failed: false, reason: null, jobId: "job_a" }
    ])
    expect(outcomeOf({ _tag: "InFlight" })).toEqual([])
  })

  it(`a retryable failure waits for the next check once; at the ${ENTRY_TRIES}nd it is given up with the job's error`, () => {
    expect(outcomeOf(failed(true), 0)).toMatchObject([{ result: "waiting", failed: true, reason: { code: "download_failed" } }])
    expect(outcomeOf(failed(true), ENTRY_TRIES - 1)).toMatchObject([
      { result: "given_up", failed: true, reason: { code: "download_failed" } }
    ])
    expect(outcomeOf(failed(false), 0)).toMatchObject([{ result: "given_up", reason: { code: "media_unavailable" } }])
  })

  it("held by the quota or never started: waits, no try counted; canceled or unknown: given up with that reason", () => {
    expect(outcomeOf({ _tag: "Held", jobId: "job_a", error: { code: "quota_exceeded", message: "x" } }, 1)).toMatchObject([
      { result: "waiting", failed: false }
    ])
    expect(outcomeOf({ _tag: "Unfed" }, 1)).toMatchObject([{ result: "waiting", failed: false, reason: { code: "not_started" } }])
    expect(outcomeOf({ _tag: "Canceled", jobId: null })).toMatchObject([{ result: "given_up", reason: { code: "canceled" } }])
    expect(outcomeOf({ _tag: "Unknown" })).toMatchObject([{ result: "given_up", reason: { code: "outcome_unknown" } }])
  })
})
