// SubscriptionReadModel on NATS KV: bucket mds_subscriptions, s.<projectId>.<subscriptionId> -> SubscriptionListView JSON.
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Option, Schema } from "effect"
import { SubscriptionListView } from "../../domain/subscription/SubscriptionListView.ts"
import { SubscriptionReadModel } from "../SubscriptionReadModel.ts"
import { distinctKeys, openKvBucket, readModelError } from "./KvBucket.ts"
import { putUnlessLater } from "./KvConditionalPut.ts"

export const SUBSCRIPTIONS_BUCKET = "mds_subscriptions"

const ViewJson = Schema.fromJsonString(SubscriptionListView)
const decodeView = Schema.decodeUnknownEffect(ViewJson)
const encodeView = Schema.encodeEffect(ViewJson)

const docKey = (projectId: string, subscriptionId: string) => `s.${projectId}.${subscriptionId}`

const tryKv = <A>(operation: string, run: () => Promise<A>) => Effect.tryPromise({ try: run, catch: readModelError(operation) })

const readView = (kv: KV, key: string) =>
  tryKv(`get ${key}`, () => kv.get(key)).pipe(
    Effect.flatMap((entry) =>
      entry === null || entry.operation !== "PUT"
        ? Effect.succeed(Option.none<SubscriptionListView>())
        : decodeView(entry.string()).pipe(Effect.map(Option.some), Effect.mapError(readModelError(`decode ${key}`)))
    )
  )

export const makeKvSubscriptionReadModel = Effect.fn("makeKvSubscriptionReadModel")(function* (bucket: string) {
  // Subscriptions live until removed, and their events are kept for good: the documents never expire.
  const kv = yield* openKvBucket(bucket, 0)

  return SubscriptionReadModel.of({
    get: (projectId, subscriptionId) => readView(kv, docKey(projectId, subscriptionId)),

    put: Effect.fn("KvSubscriptionReadModel.put")(function* (view) {
      const key = docKey(view.projectId, view.subscriptionId)
      const json = yield* encodeView(view).pipe(Effect.mapError(readModelError(`encode ${key}`)))
      yield* tryKv(`put ${key}`, () => putUnlessLater(kv, key, json, view.lastSeq))
    }),

    listByProject: Effect.fn("KvSubscriptionReadModel.listByProject")(function* (projectId) {
      const keys = yield* tryKv(`list s.${projectId}`, () => distinctKeys(kv, `s.${projectId}.*`))
      const views = yield* Effect.forEach(keys, (key) => readView(kv, key), { concurrency: 8 })
      return views.flatMap((view) => (Option.isSome(view) ? [view.value] : []))
    })
  })
})

export const KvSubscriptionReadModel = {
  layer: Layer.effect(SubscriptionReadModel, makeKvSubscriptionReadModel(SUBSCRIPTIONS_BUCKET)),
  layerWithBucket: (bucket: string) => Layer.effect(SubscriptionReadModel, makeKvSubscriptionReadModel(bucket))
}
