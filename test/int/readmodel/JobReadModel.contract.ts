// Behaviour every JobReadModel adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { newId } from "@mds/shared/ids/Ids"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { jobView } from "../../support/JobViews.ts"

export const jobReadModelContract = (name: string, adapter: Layer.Layer<JobReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`JobReadModel contract: ${name}`, (it) => {
    it.effect("get of an unknown job is none", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        assert.isTrue(Option.isNone(yield* store.get(newId("prj"), newId("job"))))
      })
    )

    it.effect("put then get returns the same document", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"), {
          status: "completed",
          progress: 100,
          startedAt: 2_000,
          completedAt: 3_000,
          artifact: { key: "a/b.mp4", filename: "b.mp4", mimeType: "video/mp4", sizeBytes: 12, availableUntil: 9_000 },
          lastSeq: 7
        })
        yield* store.put(view)
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(view))
      })
    )

    it.effect("put replaces the previous document", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"))
        yield* store.put(view)
        const replaced: JobView = { ...view, status: "processing", progress: 40, attempt: 1, lastSeq: 3 }
        yield* store.put(replaced)
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(replaced))
      })
    )

    it.effect("put never replaces a document of a later sequence (a slower writer cannot move it backwards)", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"))
        const later: JobView = { ...view, status: "processing", progress: 50, lastSeq: 9 }
        yield* store.put(later)
        yield* store.put({ ...view, lastSeq: 4 })
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(later))
        const sameSeq: JobView = { ...later, progress: 55 }
        yield* store.put(sameSeq)
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(sameSeq))
      })
    )

    it.effect("putNew stores a job's first document; over a stored one it is put (an earlier one replaced, a later one kept)", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"), { lastSeq: 3 })
        yield* store.putNew(view)
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(view))
        // Another writer stored the job meanwhile: a later fold replaces it, an earlier one leaves it.
        const later: JobView = { ...view, status: "processing", attempt: 1, lastSeq: 8 }
        yield* store.putNew(later)
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(later))
        yield* store.putNew({ ...view, lastSeq: 5 })
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(later))
        // After a removal the job's key is free again.
        yield* store.remove(view.projectId, view.id)
        yield* store.putNew(view)
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(view))
      })
    )

    it.effect("putAt writes only over the revision it was given: none stored, then the one getVersioned returned", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"), { lastSeq: 2 })
        const first = yield* store.putAt(view, null)
        assert.strictEqual(first._tag, "Written")
        // Stored meanwhile: a second first write finds it changed and leaves it.
        assert.deepStrictEqual(yield* store.putAt({ ...view, lastSeq: 3 }, null), { _tag: "Changed" })
        const stored = yield* store.getVersioned(view.projectId, view.id)
        assert.isTrue(Option.isSome(stored))
        if (Option.isNone(stored) || first._tag !== "Written") return
        assert.deepStrictEqual(stored.value, { view, revision: first.revision })
        const later: JobView = { ...view, status: "processing", lastSeq: 5 }
        const second = yield* store.putAt(later, first.revision)
        assert.strictEqual(second._tag, "Written")
        // A writer still holding the first revision (another aggregator) is told the document changed.
        assert.deepStrictEqual(yield* store.putAt({ ...view, lastSeq: 4 }, first.revision), { _tag: "Changed" })
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(later))
        // After a removal there is nothing stored: a first write takes the key again.
        yield* store.remove(view.projectId, view.id)
        assert.isTrue(Option.isNone(yield* store.getVersioned(view.projectId, view.id)))
        assert.strictEqual((yield* store.putAt(view, null))._tag, "Written")
        assert.deepStrictEqual(yield* store.get(view.projectId, view.id), Option.some(view))
      })
    )

    it.effect("a job is found only under its own project", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"))
        yield* store.put(view)
        assert.isTrue(Option.isNone(yield* store.get(newId("prj"), view.id)))
      })
    )

    it.effect("remove deletes the document; removing again is harmless", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"))
        yield* store.put(view)
        yield* store.remove(view.projectId, view.id)
        assert.isTrue(Option.isNone(yield* store.get(view.projectId, view.id)))
        yield* store.remove(view.projectId, view.id)
        assert.deepStrictEqual(yield* store.listByProject(view.projectId, 10), [])
      })
    )

    it.effect("listByProject lists each job once while its document is being written (a job in progress)", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const projectId = newId("prj")
        const views = Array.from({ length: 20 }, (_, i) => jobView(projectId, { createdAt: 1_000 + i, status: "processing", lastSeq: 1 }))
        yield* Effect.forEach(views, (view) => store.put(view))
        // Progress written to every job while the listings run: a listing that follows the store while it changes
        // must still name each job once.
        const writes = Effect.forEach(
          Array.from({ length: 30 }, (_, round) => round),
          (round) => Effect.forEach(views, (view) => store.put({ ...view, progress: round + 1, lastSeq: round + 2 }), { concurrency: 4 })
        )
        const listings = Effect.forEach(
          Array.from({ length: 30 }, (_, i) => i),
          () => store.listByProject(projectId, 100)
        )
        const [, listed] = yield* Effect.all([writes, listings], { concurrency: 2 })
        for (const listing of listed) {
          const ids = listing.map((view) => view.id)
          assert.deepStrictEqual(ids.length, new Set(ids).size, `a job was listed twice: ${ids.join(" ")}`)
          assert.strictEqual(ids.length, views.length)
        }
      })
    )

    it.effect("listByProject returns the project's jobs newest first, up to the limit", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const projectId = newId("prj")
        const other = newId("prj")
        const views = [3_000, 1_000, 5_000, 2_000, 4_000].map((createdAt) => jobView(projectId, { createdAt }))
        yield* Effect.forEach(views, (view) => store.put(view))
        yield* store.put(jobView(other, { createdAt: 9_000 }))

        const all = yield* store.listByProject(projectId, 10)
        assert.deepStrictEqual(
          all.map((v) => v.createdAt),
          [5_000, 4_000, 3_000, 2_000, 1_000]
        )
        assert.isTrue(all.every((v) => v.projectId === projectId))

        const firstTwo = yield* store.listByProject(projectId, 2)
        assert.deepStrictEqual(
          firstTwo.map((v) => v.createdAt),
          [5_000, 4_000]
        )

        assert.deepStrictEqual(
          (yield* store.listByProject(other, 10)).map((v) => v.createdAt),
          [9_000]
        )
        assert.deepStrictEqual(yield* store.listByProject(newId("prj"), 10), [])
      })
    )

    it.effect("listByProject reflects replacements, not duplicates", () =>
      Effect.gen(function* () {
        const store = yield* JobReadModel
        const view = jobView(newId("prj"))
        yield* store.put(view)
        yield* store.put({ ...view, status: "failed", lastSeq: 2 })
        const listed = yield* store.listByProject(view.projectId, 10)
        assert.deepStrictEqual(
          listed.map((v) => [v.id, v.status]),
          [[view.id, "failed"]]
        )
      })
    )
  })
