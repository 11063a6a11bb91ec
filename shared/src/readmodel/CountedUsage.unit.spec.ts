// The counted usage under what a JetStream consumer does to it: redeliveries, late messages, crashes between its two
// writes, concurrent writers; and a day's document that does not grow with its jobs.
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { JobUsage } from "../domain/usage/JobUsage.ts"
import { countedUsage, type UsageDocuments } from "./CountedUsage.ts"
import { makeInMemoryUsageDocuments } from "./memory/InMemoryUsageReadModel.ts"
import { ReadModelError } from "./ReadModelError.ts"

const DAY = "2026-11-20"
const usage = (jobId: string, fields: Partial<JobUsage> = {}): JobUsage => ({
  projectId: "prj_a",
  jobId,
  day: DAY,
  status: "queued",
  platform: "vimeo",
  errorCode: null,
  bytes: 0,
  lastSeq: 1,
  ...fields
})
const completed = (jobId: string, lastSeq: number) => usage(jobId, { status: "completed", bytes: 100, lastSeq })
/** A platform's counters holding one completed job of 100 bytes, and nothing else. */
const ONE_COMPLETED = { queued: 0, processing: 0, completed: 1, failed: 0, expired: 0, canceled: 0, bytes: 100 }

/** The documents, with the next `n` writes of one kind failing (a process that dies at that point). */
const crashing = (documents: UsageDocuments) => {
  const crashes = { putDay: 0, putJob: 0 }
  const crash = (what: string) => Effect.fail(new ReadModelError({ operation: what, message: "the process died here" }))
  const wrapped: UsageDocuments = {
    ...documents,
    putDay: (doc, expected) => (crashes.putDay-- > 0 ? crash("putDay") : documents.putDay(doc, expected)),
    putJob: (job, expected) => (crashes.putJob-- > 0 ? crash("putJob") : documents.putJob(job, expected))
  }
  return { wrapped, crashes }
}

const vimeo = (documents: UsageDocuments) => Effect.map(documents.listDays("prj_a", DAY, DAY), (days) => days[0]?.platforms["vimeo"])

describe("counted usage", () => {
  it.effect("counts a redelivered change once, and a late (older) one not at all", () =>
    Effect.gen(function* () {
      const documents = makeInMemoryUsageDocuments()
      const store = countedUsage(documents)
      yield* store.record(usage("job_1"))
      yield* store.record(usage("job_1"))
      yield* store.record(completed("job_1", 4))
      yield* store.record(completed("job_1", 4))
      yield* store.record(usage("job_1"))
      assert.deepStrictEqual(yield* vimeo(documents), ONE_COMPLETED)
      assert.deepStrictEqual((yield* documents.getDay("prj_a", DAY))?.value.pending, {})
    })
  )

  it.effect("a crash after the counters were written, before the job's entry: the redelivery counts nothing again", () =>
    Effect.gen(function* () {
      const documents = makeInMemoryUsageDocuments()
      const { wrapped, crashes } = crashing(documents)
      const store = countedUsage(wrapped)
      yield* store.record(usage("job_1"))
      crashes.putJob = 1
      assert.strictEqual((yield* Effect.flip(store.record(completed("job_1", 4)))).message, "the process died here")
      // The counters hold the change already; its entry is not written: the change is pending in the day.
      assert.strictEqual((yield* vimeo(documents))?.completed, 1)
      assert.strictEqual((yield* documents.getJob("prj_a", "job_1"))?.value.lastSeq, 1)
      yield* store.record(completed("job_1", 4))
      assert.deepStrictEqual(yield* vimeo(documents), ONE_COMPLETED)
      assert.strictEqual((yield* documents.getJob("prj_a", "job_1"))?.value.lastSeq, 4)
      assert.deepStrictEqual((yield* documents.getDay("prj_a", DAY))?.value.pending, {})
    })
  )

  it.effect("after such a crash the job's next change moves it from what the counters hold, not from its stale entry", () =>
    Effect.gen(function* () {
      const documents = makeInMemoryUsageDocuments()
      const { wrapped, crashes } = crashing(documents)
      const store = countedUsage(wrapped)
      yield* store.record(usage("job_1"))
      crashes.putJob = 1
      yield* Effect.flip(store.record(usage("job_1", { status: "processing", lastSeq: 3 })))
      yield* store.record(completed("job_1", 7))
      assert.deepStrictEqual(yield* vimeo(documents), ONE_COMPLETED)
    })
  )

  it.effect("a crash after the job's entry, before its pending change was dropped: the redelivery only drops it", () =>
    Effect.gen(function* () {
      const documents = makeInMemoryUsageDocuments()
      // The change's first day write (the counters) lands, its second (dropping the pending change) dies.
      let dayWrites = 0
      const dying: UsageDocuments = {
        ...documents,
        putDay: (doc, expected) =>
          ++dayWrites === 2 ? Effect.fail(new ReadModelError({ operation: "putDay", message: "died" })) : documents.putDay(doc, expected)
      }
      const failed = usage("job_3", { status: "failed", errorCode: "x", lastSeq: 9 })
      yield* Effect.flip(countedUsage(dying).record(failed))
      assert.isDefined((yield* documents.getDay("prj_a", DAY))?.value.pending["job_3"])
      assert.strictEqual((yield* documents.getJob("prj_a", "job_3"))?.value.lastSeq, 9)
      yield* countedUsage(documents).record(failed)
      const day = (yield* documents.getDay("prj_a", DAY))?.value
      assert.deepStrictEqual(day?.pending, {})
      assert.deepStrictEqual(day?.errors, { x: 1 })
      assert.strictEqual(day?.platforms["vimeo"]?.failed, 1)
    })
  )

  it.effect("writers at once, two of them on each job, count every job exactly once", () =>
    Effect.gen(function* () {
      const documents = makeInMemoryUsageDocuments()
      const store = countedUsage(documents)
      const jobs = Array.from({ length: 200 }, (_, i) => `job_${i}`)
      const changes = jobs.flatMap((jobId) => [usage(jobId), completed(jobId, 5), completed(jobId, 5), usage(jobId)])
      yield* Effect.forEach(changes, (change) => store.record(change), { concurrency: 16, discard: true })
      const counts = yield* vimeo(documents)
      assert.strictEqual((counts?.completed ?? 0) + (counts?.queued ?? 0), 200)
      assert.strictEqual(counts?.completed, 200)
      assert.strictEqual(counts?.bytes, 20_000)
    })
  )

  it.effect("a day's document stays the same size whether it counts ten jobs or two thousand", () =>
    Effect.gen(function* () {
      const documents = makeInMemoryUsageDocuments()
      const store = countedUsage(documents)
      const size = () => Effect.map(documents.getDay("prj_a", DAY), (day) => JSON.stringify(day?.value).length)
      const fill = (from: number, to: number) =>
        Effect.forEach(
          Array.from({ length: to - from }, (_, i) => from + i),
          (i) =>
            store.record(
              i % 2 === 0
                ? completed(`job_${i}`, i + 1)
                : usage(`job_${i}`, { status: "failed", errorCode: "download_failed", lastSeq: i + 1 })
            ),
          { discard: true }
        )
      yield* fill(0, 10)
      const small = yield* size()
      yield* fill(10, 2_000)
      // Only the numbers' digits and the newest examples' ids differ.
      assert.isAtMost((yield* size()) - small, 40)
    })
  )
})
