// Given job events delivered in batches (a rebuild) or one by one with redeliveries (live), when the job projector folds them, then the stored documents are each job's fold.
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option, Schema } from "effect"
import { decodeJobEventJson, JobEvent } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { evolveJobView } from "@mds/shared/domain/job/JobState"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { InMemoryJobReadModel } from "@mds/shared/readmodel/memory/InMemoryJobReadModel"
import { SubjectHistory } from "../projections/SubjectHistory.ts"
import { type DeliveredJobMessage, makeJobProjector } from "./JobProjector.ts"
import { jobArtifact, jobCompleted, jobProgressed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"

const T = 1_700_000_000_000
const encodeJobEvent = Schema.encodeSync(Schema.fromJsonString(JobEvent))
const PROJECT = "prj_rebuild"

const queued = (jobId: string): JobEvent =>
  jobQueued(PROJECT, jobId, T, { platform: "vimeo", source: { url: "https://vimeo.com/1", mediaId: null } })
const started = (jobId: string): JobEvent => jobStarted(jobId, T + 1)
const progressed = (jobId: string, percent: number): JobEvent => jobProgressed(jobId, percent, T + percent)
const completed = (jobId: string): JobEvent =>
  jobCompleted(PROJECT, jobId, T + 200, jobArtifact(PROJECT, jobId, T, { key: `p/${jobId}/clip.mp4`, sizeBytes: 10 }))

/**
 * The stream: events of several jobs interleaved, with a poison message, as the ordered consumer delivers them; each
 * carries its subject's previous sequence, as every job event is appended expecting it.
 */
const stream = (entries: ReadonlyArray<readonly [string, JobEvent | string]>): Array<DeliveredJobMessage> => {
  const lastOf = new Map<string, number>()
  return entries.map(([jobId, event], i) => {
    const subject = jobSubject(PROJECT, jobId)
    const previousSeq = lastOf.get(subject) ?? 0
    lastOf.set(subject, i + 1)
    return { subject, seq: i + 1, data: typeof event === "string" ? event : encodeJobEvent(event), previousSeq }
  })
}

/** What the live projection stores: the fold of the job's events (never a link: that is signed where it is answered). */
const expected = (messages: ReadonlyArray<DeliveredJobMessage>, jobId: string): JobView | null => {
  const subject = jobSubject(PROJECT, jobId)
  return messages
    .filter((m) => m.subject === subject)
    .reduce<JobView | null>((view, m) => {
      const event = decodeJobEventJson(m.data)
      return Option.isSome(event) ? evolveJobView(view, event.value, m.seq) : view
    }, null)
}

const interleaved = stream([
  ["a", queued("a")],
  ["b", queued("b")],
  ["a", started("a")],
  ["c", queued("c")],
  ["b", progressed("b", 30)],
  ["a", '{"_tag":"JobProgressed","v":99}'],
  ["a", progressed("a", 40)],
  ["c", completed("c")],
  ["b", progressed("b", 70)],
  ["d", progressed("d", 10)],
  ["a", completed("a")],
  ["b", started("b")],
  ["c", progressed("c", 99)],
  ["a", progressed("a", 50)],
  ["b", completed("b")]
])
const JOBS = ["a", "b", "c", "d"]

/** Each job's expected document, in the order of JOBS. */
const expectedDocs = (messages: ReadonlyArray<DeliveredJobMessage>) => JOBS.map((jobId) => expected(messages, jobId))

/** The subject's history read from the given stream, counting the reads. */
const historyOf = (messages: ReadonlyArray<DeliveredJobMessage>) => {
  const calls = { range: 0 }
  const history = SubjectHistory.of({
    range: (_stream, subject, afterSeq, uptoSeq) =>
      Effect.sync(() => {
        calls.range++
        return messages.filter((m) => m.subject === subject && m.seq > afterSeq && m.seq <= uptoSeq)
      })
  })
  return { history, calls }
}

/** The in-memory read model, counting the calls the projector makes (a write at no revision is a first write). */
const countingReadModel = Effect.gen(function* () {
  const inner = yield* Effect.provide(
    Effect.gen(function* () {
      return yield* JobReadModel
    }),
    InMemoryJobReadModel.layer
  )
  const calls = { get: 0, put: 0, putNew: 0 }
  const readModel = JobReadModel.of({
    ...inner,
    getVersioned: (projectId, jobId) => Effect.suspend(() => (calls.get++, inner.getVersioned(projectId, jobId))),
    putAt: (view, revision) => Effect.suspend(() => (revision === null ? calls.putNew++ : calls.put++, inner.putAt(view, revision)))
  })
  return { readModel, inner, calls }
})

interface Limits {
  readonly documents: number
  readonly concurrency: number
}

const rebuild = (messages: ReadonlyArray<DeliveredJobMessage>, batchSize: number, limits: Limits) =>
  Effect.gen(function* () {
    const { readModel, inner, calls } = yield* countingReadModel
    const { history, calls: historyCalls } = historyOf(messages)
    const { project } = makeJobProjector(readModel, history, { ...limits, ordered: true })
    for (let from = 0; from < messages.length; from += batchSize) yield* project(messages.slice(from, from + batchSize))
    const docs = yield* Effect.forEach(JOBS, (jobId) => Effect.map(inner.get(PROJECT, jobId), Option.getOrNull))
    assert.strictEqual(historyCalls.range, 0, "an ordered replay never reads a subject's history")
    return { docs, calls, inner, project }
  })

/** The live projector, one delivered message at a time, over the given read model. */
const live = (messages: ReadonlyArray<DeliveredJobMessage>, documents = 100) =>
  Effect.gen(function* () {
    const { readModel, inner, calls } = yield* countingReadModel
    const { history, calls: historyCalls } = historyOf(messages)
    const { projectSubject } = makeJobProjector(readModel, history, { documents, concurrency: 1, ordered: false })
    const deliver = (message: DeliveredJobMessage) => projectSubject(message.subject, [message])
    const docs = Effect.forEach(JOBS, (jobId) => Effect.map(inner.get(PROJECT, jobId), Option.getOrNull))
    return { deliver, docs, calls, historyCalls, inner }
  })

/** The live consumer terminates a poison message: it never reaches the projector. */
const decodable = (message: DeliveredJobMessage) => !message.data.includes('"v":99')

describe("JobProjector in a rebuild (ordered, batched)", () => {
  it.effect("one batch: every job's document is the live projection's, each written once with no reads", () =>
    Effect.gen(function* () {
      const { docs, calls } = yield* rebuild(interleaved, 1_000, { documents: 100, concurrency: 4 })
      assert.deepStrictEqual(docs, expectedDocs(interleaved))
      // d has no JobQueued: nothing to store.
      assert.isNull(docs[3])
      assert.strictEqual(docs[0]?.status, "completed")
      assert.notProperty(docs[0], "downloadUrl")
      assert.deepStrictEqual(calls, { get: 0, put: 0, putNew: 3 })
    })
  )

  it.effect("batches that split jobs: the same documents; a job seen again is written with the conditional put", () =>
    Effect.gen(function* () {
      const { docs, calls } = yield* rebuild(interleaved, 4, { documents: 100, concurrency: 4 })
      assert.deepStrictEqual(docs, expectedDocs(interleaved))
      assert.strictEqual(calls.get, 0)
      assert.strictEqual(calls.putNew, 3)
      assert.isAbove(calls.put, 0)
    })
  )

  it.effect("memory for one document: the others are dropped, read back when their job goes on, and still folded correctly", () =>
    Effect.gen(function* () {
      for (const batchSize of [1, 2, 3, 5]) {
        const { docs, calls } = yield* rebuild(interleaved, batchSize, { documents: 1, concurrency: 2 })
        assert.deepStrictEqual(docs, expectedDocs(interleaved), `batches of ${batchSize}`)
        assert.isAbove(calls.get, 0, `batches of ${batchSize}`)
      }
    })
  )

  it.effect("jobs met for the first time after others were dropped are not read from the store (their first event says so)", () =>
    Effect.gen(function* () {
      // Each job's events together: no job comes back once another has pushed it out of memory.
      const oneAfterAnother = stream(
        JOBS.flatMap(
          (jobId) =>
            [
              [jobId, queued(jobId)],
              [jobId, started(jobId)],
              [jobId, completed(jobId)]
            ] as const
        )
      )
      const { docs, calls } = yield* rebuild(oneAfterAnother, 2, { documents: 1, concurrency: 2 })
      assert.deepStrictEqual(docs, expectedDocs(oneAfterAnother))
      assert.strictEqual(calls.get, 0)
    })
  )

  it.effect("after the switch: a later document the live aggregator stored is not moved back, and later events still land", () =>
    Effect.gen(function* () {
      const head = interleaved.slice(0, 8)
      const { inner, project } = yield* rebuild(head, 8, { documents: 1, concurrency: 2 })
      // The live aggregator, already on the new store, folded a's events up to #11 while the rebuild held #7.
      const live = expected(interleaved.slice(0, 11), "a")!
      yield* inner.put(live)
      yield* project(interleaved.slice(8, 10))
      assert.deepStrictEqual(yield* inner.get(PROJECT, "a"), Option.some(live))
      yield* project(interleaved.slice(10))
      assert.deepStrictEqual(yield* inner.get(PROJECT, "a"), Option.some(expected(interleaved, "a")!))
    })
  )
})

describe("JobProjector live (one message at a time, redeliveries)", () => {
  const delivered = interleaved.filter(decodable)

  it.effect("in order: every document is the fold, with no read of the store or of any history (the view is held)", () =>
    Effect.gen(function* () {
      const { calls, deliver, docs, historyCalls } = yield* live(interleaved)
      for (const message of delivered) yield* deliver(message)
      assert.deepStrictEqual(yield* docs, expectedDocs(interleaved))
      assert.strictEqual(calls.get, 0)
      // Only a's event after the poison message reads a's history: the poison one was never delivered.
      assert.strictEqual(historyCalls.range, 1)
      assert.strictEqual(calls.putNew, 3)
    })
  )

  it.effect("every message delivered again (after the others) changes nothing and writes nothing", () =>
    Effect.gen(function* () {
      const { calls, deliver, docs } = yield* live(interleaved)
      for (const message of delivered) yield* deliver(message)
      const writes = calls.put + calls.putNew
      for (const message of delivered) assert.strictEqual(yield* deliver(message), "unchanged")
      assert.deepStrictEqual(yield* docs, expectedDocs(interleaved))
      assert.strictEqual(calls.put + calls.putNew, writes)
    })
  )

  it.effect("out of order (a message nak'd and delivered after later ones of its job): the later one folds the history in between", () =>
    Effect.gen(function* () {
      const { deliver, docs, historyCalls } = yield* live(interleaved)
      // a's JobStarted (#3) is held back until after a's JobProgressed (#7).
      const held = delivered.find((message) => message.seq === 3)!
      for (const message of delivered) if (message !== held) yield* deliver(message)
      assert.isAbove(historyCalls.range, 0)
      assert.strictEqual(yield* deliver(held), "unchanged")
      assert.deepStrictEqual(yield* docs, expectedDocs(interleaved))
    })
  )

  it.effect("memory for one view: jobs dropped from memory are read back from the store and still folded correctly", () =>
    Effect.gen(function* () {
      const { calls, deliver, docs } = yield* live(interleaved, 1)
      for (const message of delivered) yield* deliver(message)
      assert.deepStrictEqual(yield* docs, expectedDocs(interleaved))
      assert.isAbove(calls.get, 0)
    })
  )

  it.effect("another writer changed a document: the compare-and-set fails, the projector reads it again and folds onto it", () =>
    Effect.gen(function* () {
      const { deliver, docs, inner } = yield* live(interleaved)
      const upTo = (seq: number) => delivered.filter((message) => message.seq <= seq)
      for (const message of upTo(8)) yield* deliver(message)
      // A second aggregator stored a's fold up to #11 meanwhile.
      yield* inner.put(expected(interleaved.slice(0, 11), "a")!)
      for (const message of delivered.filter((message) => message.seq > 8)) yield* deliver(message)
      assert.deepStrictEqual(yield* docs, expectedDocs(interleaved))
    })
  )

  it.effect("a job's document removed from the store is not brought back by a redelivery of an event already applied", () =>
    Effect.gen(function* () {
      const { deliver, inner } = yield* live(interleaved)
      for (const message of delivered) yield* deliver(message)
      yield* inner.remove(PROJECT, "c")
      yield* deliver(delivered.find((message) => message.subject === jobSubject(PROJECT, "c"))!)
      assert.isTrue(Option.isNone(yield* inner.get(PROJECT, "c")))
    })
  )
})
