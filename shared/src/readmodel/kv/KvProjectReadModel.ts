// ProjectReadModel on NATS KV: bucket mds_projects, p.<projectId> -> ProjectView JSON, m.<userId>.<projectId> -> membership index.
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Option, Schema } from "effect"
import { ProjectView } from "../../domain/account/AccountViews.ts"
import { openKvBucket, readModelError, distinctKeys } from "./KvBucket.ts"
import { putUnlessLater } from "./KvConditionalPut.ts"
import { byProjectName, ProjectReadModel } from "../ProjectReadModel.ts"

export const PROJECTS_BUCKET = "mds_projects"

const ProjectJson = Schema.fromJsonString(ProjectView)
const decodeProject = Schema.decodeUnknownEffect(ProjectJson)
const encodeProject = Schema.encodeEffect(ProjectJson)
const decodeProjectOption = Schema.decodeUnknownOption(ProjectJson)

const docKey = (projectId: string) => `p.${projectId}`
const memberKey = (userId: string, projectId: string) => `m.${userId}.${projectId}`

const tryKv = <A>(operation: string, run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: readModelError(operation) })

const readProject = (kv: KV, projectId: string) =>
  tryKv(`get ${docKey(projectId)}`, () => kv.get(docKey(projectId))).pipe(
    Effect.flatMap((entry) =>
      entry === null || entry.operation !== "PUT"
        ? Effect.succeed(Option.none<ProjectView>())
        : decodeProject(entry.string()).pipe(Effect.map(Option.some), Effect.mapError(readModelError(`decode ${projectId}`)))
    )
  )

export const makeKvProjectReadModel = Effect.fn("makeKvProjectReadModel")(function* (bucket: string) {
  // Projects live as long as their events (kept for good), so the documents never expire.
  const kv = yield* openKvBucket(bucket, 0)

  return ProjectReadModel.of({
    get: (projectId) => readProject(kv, projectId),

    put: Effect.fn("KvProjectReadModel.put")(function* (view) {
      const json = yield* encodeProject(view).pipe(Effect.mapError(readModelError(`encode ${view.projectId}`)))
      // The document first, then the index: the index never points at a document that is not there yet.
      const outcome = yield* tryKv(`put ${docKey(view.projectId)}`, () => putUnlessLater(kv, docKey(view.projectId), json, view.lastSeq))
      if (!outcome.written) return
      const previous = outcome.previous === null ? Option.none<ProjectView>() : decodeProjectOption(outcome.previous)
      const current = new Set(view.members.map((m) => m.userId))
      yield* Effect.forEach(view.members, (m) => tryKv(`index ${m.userId}`, () => kv.put(memberKey(m.userId, view.projectId), "")))
      const gone = Option.isSome(previous) ? previous.value.members.filter((m) => !current.has(m.userId)) : []
      yield* Effect.forEach(gone, (m) => tryKv(`unindex ${m.userId}`, () => kv.purge(memberKey(m.userId, view.projectId))))
    }),

    listByMember: Effect.fn("KvProjectReadModel.listByMember")(function* (userId) {
      const keys = yield* tryKv(`list m.${userId}`, async () => {
        return distinctKeys(kv, `m.${userId}.*`)
      })
      const views = yield* Effect.forEach(keys, (key) => readProject(kv, key.split(".")[2] ?? ""), { concurrency: 8 })
      // A stale index entry (a member removed between the two writes) is not a membership.
      return views
        .flatMap((view) => (Option.isSome(view) && view.value.members.some((m) => m.userId === userId) ? [view.value] : []))
        .sort(byProjectName)
    })
  })
})

export const KvProjectReadModel = {
  layer: Layer.effect(ProjectReadModel, makeKvProjectReadModel(PROJECTS_BUCKET)),
  layerWithBucket: (bucket: string) => Layer.effect(ProjectReadModel, makeKvProjectReadModel(bucket))
}
