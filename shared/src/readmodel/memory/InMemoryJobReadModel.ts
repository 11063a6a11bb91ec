// JobReadModel kept in process memory: for tests and single-process tools; passes the same contract suite as KV.
import { Effect, Layer, Option, Ref } from "effect"
import type { JobView } from "../../domain/job/JobView.ts"
import { JobReadModel, type JobViewWrite } from "../JobReadModel.ts"

const keyOf = (projectId: string, jobId: string) => `${projectId}\u0000${jobId}`

export const InMemoryJobReadModel = {
  layer: Layer.effect(
    JobReadModel,
    Effect.gen(function* () {
      const docs = yield* Ref.make(new Map<string, JobView>())
      /** Each write of a key gets the next revision, as a KV entry does. */
      const revisions = new Map<string, number>()
      let lastRevision = 0
      const store = (map: Map<string, JobView>, view: JobView) => {
        const key = keyOf(view.projectId, view.id)
        revisions.set(key, ++lastRevision)
        return new Map(map).set(key, view)
      }
      const put = (view: JobView) =>
        Ref.update(docs, (map) => {
          const stored = map.get(keyOf(view.projectId, view.id))
          return stored !== undefined && stored.lastSeq > view.lastSeq ? map : store(map, view)
        })
      return JobReadModel.of({
        get: (projectId, jobId) => Ref.get(docs).pipe(Effect.map((map) => Option.fromNullishOr(map.get(keyOf(projectId, jobId))))),
        put,
        putNew: put,
        getVersioned: (projectId, jobId) =>
          Ref.get(docs).pipe(
            Effect.map((map) => {
              const key = keyOf(projectId, jobId)
              const view = map.get(key)
              return view === undefined ? Option.none() : Option.some({ view, revision: revisions.get(key)! })
            })
          ),
        putAt: (view, revision) =>
          Ref.modify(docs, (map): readonly [JobViewWrite, Map<string, JobView>] => {
            const key = keyOf(view.projectId, view.id)
            const current = map.has(key) ? revisions.get(key)! : null
            if (current !== revision) return [{ _tag: "Changed" }, map]
            const next = store(map, view)
            return [{ _tag: "Written", revision: revisions.get(key)! }, next]
          }),
        remove: (projectId, jobId) =>
          Ref.update(docs, (map) => {
            const next = new Map(map)
            next.delete(keyOf(projectId, jobId))
            return next
          }),
        listByProject: (projectId, limit) =>
          Ref.get(docs).pipe(
            Effect.map((map) =>
              [...map.values()]
                .filter((view) => view.projectId === projectId)
                .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
                .slice(0, Math.max(0, limit))
            )
          )
      })
    })
  )
}
