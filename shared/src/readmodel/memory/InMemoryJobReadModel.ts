// JobReadModel kept in process memory: for tests and single-process tools; passes the same contract suite as KV.
import { Effect, Layer, Option, Ref } from "effect"
import type { JobView } from "../../domain/job/JobView.ts"
import { JobReadModel } from "../JobReadModel.ts"

const keyOf = (projectId: string, jobId: string) => `${projectId}\u0000${jobId}`

export const InMemoryJobReadModel = {
  layer: Layer.effect(
    JobReadModel,
    Effect.gen(function*() {
      const docs = yield* Ref.make(new Map<string, JobView>())
      const put = (view: JobView) =>
        Ref.update(docs, (map) => {
          const stored = map.get(keyOf(view.projectId, view.id))
          return stored !== undefined && stored.lastSeq > view.lastSeq ? map : new Map(map).set(keyOf(view.projectId, view.id), view)
        })
      return JobReadModel.of({
        get: (projectId, jobId) => Ref.get(docs).pipe(Effect.map((map) => Option.fromNullishOr(map.get(keyOf(projectId, jobId))))),
        put,
        putNew: put,
        remove: (projectId, jobId) =>
          Ref.update(docs, (map) => {
            const next = new Map(map)
            next.delete(keyOf(projectId, jobId))
            return next
          }),
        listByProject: (projectId, limit) =>
          Ref.get(docs).pipe(Effect.map((map) =>
            [...map.values()]
              .filter((view) => view.projectId === projectId)
              .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
              .slice(0, Math.max(0, limit))
          ))
      })
    })
  )
}
