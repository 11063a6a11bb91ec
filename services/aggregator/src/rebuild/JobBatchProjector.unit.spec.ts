// Given job events delivered in order in batches, when the rebuild projects them, then the stored documents are the live projection's.
import { tmpdir } from "node:os"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Option } from "effect"
import { makeDownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { makeFsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { jobSubject } from "@mds/shared/eventstore/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { InMemoryJobReadModel } from "@mds/shared/readmodel/memory/InMemoryJobReadModel"
import { type DeliveredJobMessage, type JobBatchLimits, makeJobBatchProjector } from "./JobBatchProjector.ts"
import { jobArtifact, jobCompleted, jobProgressed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"

const T = 1_700_000_000_000
const PROJECT = "prj_rebuild"
const signer = makeDownloadLinkSigner("secret", "http://files.test")
const artifacts = makeFsArtifactStore(tmpdir(), signer)

const queued = (jobId: string): JobEvent =>
  jobQueued(PROJECT, jobId, T, { platform: "vimeo", source: { url: "https://vimeo.com/1", mediaId: null } })
const started = (jobId: string): JobEvent => jobStarted(jobId, T + 1)
const progressed = (jobId: string, percent: number): JobEvent => jobProgressed(jobId, percent, T + percent)
const completed = (jobId: string): JobEvent =>
  jobCompleted(PROJECT, jobId, T + 200, jobArtifact(PROJECT, jobId, T, { key: `p/${jobId}/clip.mp4`, sizeBytes: 10 }))

/** The stream: events of several jobs interleaved, with a poison message, as the ordered consumer delivers them. */
const stream = (entries: ReadonlyArray<readonly [string, JobEvent | string]>): Array<DeliveredJobMessage> =>
  entries.map(([jobId, event], i) => ({
    subject: jobSubject(PROJECT, jobId),
    seq: i + 1,
    data: typeof event === "string" ? event : JSON.stringify(event)
  }))

/** What the live projection stores: the fold of the job's events, with its link once completed. */
const expected = (messages: ReadonlyArray<DeliveredJobMessage>, jobId: string): JobView | null => {
  const subject = jobSubject(PROJECT, jobId)
  const doc = messages.filter((m) => m.subject === subject).reduce<JobView | null>((view, m) => {
    try {
      return evolveJobView(view, JSON.parse(m.data) as JobEvent, m.seq)
    } catch {
      return view
    }
  }, null)
  if (doc?.status !== "completed" || doc.artifact === null) return doc
  return { ...doc, downloadUrl: signer.url(doc.artifact.key, doc.artifact.availableUntil, doc.artifact.filename) }
}

const interleaved = stream([
  ["a", queued("a")], ["b", queued("b")], ["a", started("a")], ["c", queued("c")],
  ["b", progressed("b", 30)], ["a", "{\"_tag\":\"JobProgressed\",\"v\":99}"], ["a", progressed("a", 40)],
  ["c", completed("c")], ["b", progressed("b", 70)], ["d", progressed("d", 10)], ["a", completed("a")],
  ["b", started("b")], ["c", progressed("c", 99)], ["a", progressed("a", 50)], ["b", completed("b")]
])
const JOBS = ["a", "b", "c", "d"]

/** The in-memory read model, counting the calls the projector makes. */
const countingReadModel = Effect.gen(function*() {
  const inner = yield* Effect.provide(
    Effect.gen(function*() {
      return yield* JobReadModel
    }),
    InMemoryJobReadModel.layer
  )
  const calls = { get: 0, put: 0, putNew: 0 }
  const readModel = JobReadModel.of({
    ...inner,
    get: (projectId, jobId) => Effect.suspend(() => (calls.get++, inner.get(projectId, jobId))),
    put: (view) => Effect.suspend(() => (calls.put++, inner.put(view))),
    putNew: (view) => Effect.suspend(() => (calls.putNew++, inner.putNew(view)))
  })
  return { readModel, inner, calls }
})

const rebuild = (messages: ReadonlyArray<DeliveredJobMessage>, batchSize: number, limits: JobBatchLimits) =>
  Effect.gen(function*() {
    const { readModel, inner, calls } = yield* countingReadModel
    const project = makeJobBatchProjector(readModel, artifacts, limits)
    for (let from = 0; from < messages.length; from += batchSize) yield* project(messages.slice(from, from + batchSize))
    const docs = yield* Effect.forEach(JOBS, (jobId) => Effect.map(inner.get(PROJECT, jobId), Option.getOrNull))
    return { docs, calls, inner, project }
  })

describe("JobBatchProjector", () => {
  it.effect("one batch: every job's document is the live projection's, each written once with no reads", () =>
    Effect.gen(function*() {
      const { docs, calls } = yield* rebuild(interleaved, 1_000, { documents: 100, concurrency: 4 })
      assert.deepStrictEqual(docs, JOBS.map((jobId) => expected(interleaved, jobId)))
      // d has no JobQueued: nothing to store.
      assert.isNull(docs[3])
      assert.isNotNull(docs[0]?.downloadUrl)
      assert.deepStrictEqual(calls, { get: 0, put: 0, putNew: 3 })
    }))

  it.effect("batches that split jobs: the same documents; a job seen again is written with the conditional put", () =>
    Effect.gen(function*() {
      const { docs, calls } = yield* rebuild(interleaved, 4, { documents: 100, concurrency: 4 })
      assert.deepStrictEqual(docs, JOBS.map((jobId) => expected(interleaved, jobId)))
      assert.strictEqual(calls.get, 0)
      assert.strictEqual(calls.putNew, 3)
      assert.isAbove(calls.put, 0)
    }))

  it.effect("memory for one document: the others are dropped, read back when their job goes on, and still folded correctly", () =>
    Effect.gen(function*() {
      for (const batchSize of [1, 2, 3, 5]) {
        const { docs, calls } = yield* rebuild(interleaved, batchSize, { documents: 1, concurrency: 2 })
        assert.deepStrictEqual(docs, JOBS.map((jobId) => expected(interleaved, jobId)), `batches of ${batchSize}`)
        assert.isAbove(calls.get, 0, `batches of ${batchSize}`)
      }
    }))

  it.effect("jobs met for the first time after others were dropped are not read from the store", () =>
    Effect.gen(function*() {
      // Each job's events together: no job comes back once another has pushed it out of memory.
      const oneAfterAnother = stream(JOBS.flatMap((jobId) => [[jobId, queued(jobId)], [jobId, started(jobId)], [jobId, completed(jobId)]] as const))
      const { docs, calls } = yield* rebuild(oneAfterAnother, 2, { documents: 1, concurrency: 2 })
      assert.deepStrictEqual(docs, JOBS.map((jobId) => expected(oneAfterAnother, jobId)))
      assert.strictEqual(calls.get, 0)
    }))

  it.effect("after the switch: a later document the live aggregator stored is not moved back, and later events still land", () =>
    Effect.gen(function*() {
      const head = interleaved.slice(0, 8)
      const { inner, project } = yield* rebuild(head, 8, { documents: 1, concurrency: 2 })
      // The live aggregator, already on the new store, folded a's events up to #11 while the rebuild held #7.
      const live = expected(interleaved.slice(0, 11), "a")!
      yield* inner.put(live)
      yield* project(interleaved.slice(8, 10))
      assert.deepStrictEqual(yield* inner.get(PROJECT, "a"), Option.some(live))
      yield* project(interleaved.slice(10))
      assert.deepStrictEqual(yield* inner.get(PROJECT, "a"), Option.some(expected(interleaved, "a")!))
    }))
})
