// The subscription list read model kept in process memory: for tests; it passes the same contract suite as the KV and MongoDB adapters.
import { Effect, Layer, Option } from "effect"
import { liveOfView, type SubscriptionListView } from "../../domain/subscription/SubscriptionListView.ts"
import { SubscriptionReadModel } from "../SubscriptionReadModel.ts"

export const makeInMemorySubscriptionReadModel = () => {
  const docs = new Map<string, SubscriptionListView>()
  const keyOf = (projectId: string, subscriptionId: string) => `${projectId}\u0000${subscriptionId}`
  return SubscriptionReadModel.of({
    get: (projectId, subscriptionId) => Effect.sync(() => Option.fromNullishOr(docs.get(keyOf(projectId, subscriptionId)))),
    put: (view) =>
      Effect.sync(() => {
        const key = keyOf(view.projectId, view.subscriptionId)
        if ((docs.get(key)?.lastSeq ?? -1) <= view.lastSeq) docs.set(key, view)
      }),
    listByProject: (projectId) => Effect.sync(() => [...docs.values()].filter((view) => view.projectId === projectId)),
    listLive: () =>
      Effect.sync(() =>
        [...docs.values()].flatMap((view) => {
          const live = liveOfView(view)
          return live === null ? [] : [live]
        })
      )
  })
}

export const InMemorySubscriptionReadModel = { layer: Layer.sync(SubscriptionReadModel, makeInMemorySubscriptionReadModel) }
