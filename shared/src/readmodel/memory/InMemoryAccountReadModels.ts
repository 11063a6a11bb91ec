// Project and key read models kept in process memory: for tests; they pass the same contract suites as the KV adapters.
import { Effect, Layer, Option } from "effect"
import type { KeyRecord, ProjectView } from "../../domain/account/AccountViews.ts"
import { KeyReadModel, newestKeyFirst } from "../KeyReadModel.ts"
import { byProjectName, ProjectReadModel } from "../ProjectReadModel.ts"

export const InMemoryProjectReadModel = {
  layer: Layer.sync(ProjectReadModel, () => {
    const docs = new Map<string, ProjectView>()
    return ProjectReadModel.of({
      get: (projectId) => Effect.sync(() => Option.fromNullishOr(docs.get(projectId))),
      put: (view) =>
        Effect.sync(() => {
          if ((docs.get(view.projectId)?.lastSeq ?? 0) <= view.lastSeq) docs.set(view.projectId, view)
        }),
      listByMember: (userId) =>
        Effect.sync(() => [...docs.values()].filter((view) => view.members.some((m) => m.userId === userId)).sort(byProjectName))
    })
  })
}

export const InMemoryKeyReadModel = {
  layer: Layer.sync(KeyReadModel, () => {
    const records = new Map<string, KeyRecord>()
    const lastUsed = new Map<string, number>()
    const keyOf = (projectId: string, keyId: string) => `${projectId}\u0000${keyId}`
    const view = (record: KeyRecord) => ({ ...record, lastUsedAt: lastUsed.get(keyOf(record.projectId, record.keyId)) ?? null })
    return KeyReadModel.of({
      get: (projectId, keyId) => Effect.sync(() => Option.map(Option.fromNullishOr(records.get(keyOf(projectId, keyId))), view)),
      put: (record) =>
        Effect.sync(() => {
          const key = keyOf(record.projectId, record.keyId)
          if ((records.get(key)?.lastSeq ?? 0) <= record.lastSeq) records.set(key, record)
        }),
      recordUse: (projectId, keyId, at) =>
        Effect.sync(() => {
          const key = keyOf(projectId, keyId)
          lastUsed.set(key, Math.max(lastUsed.get(key) ?? at, at))
        }),
      listByProject: (projectId) =>
        Effect.sync(() =>
          [...records.values()]
            .filter((r) => r.projectId === projectId)
            .map(view)
            .sort(newestKeyFirst)
        )
    })
  })
}
