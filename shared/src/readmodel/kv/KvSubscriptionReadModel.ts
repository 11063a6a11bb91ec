// SubscriptionReadModel on NATS KV: bucket mds_subscriptions, s.<projectId>.<subscriptionId> -> SubscriptionListView JSON,
// and l.<projectId>.<subscriptionId> -> LiveSubscription JSON while the subscription is live (the reconcile's listing).
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Option, Schema } from "effect"
import { LiveSubscription, liveOfView, SubscriptionListView } from "../../domain/subscription/SubscriptionListView.ts"
import { SubscriptionReadModel } from "../SubscriptionReadModel.ts"
import { distinctKeys, openKvBucket, readModelError } from "./KvBucket.ts"
import { putUnlessLater } from "./KvConditionalPut.ts"

export const SUBSCRIPTIONS_BUCKET = "mds_subscriptions"

const ViewJson = Schema.fromJsonString(SubscriptionListView)
const decodeView = Schema.decodeUnknownEffect(ViewJson)
const encodeView = Schema.encodeEffect(ViewJson)

const LiveJson = Schema.fromJsonString(LiveSubscription)
const decodeLive = Schema.decodeUnknownOption(LiveJson)
const encodeLive = Schema.encodeSync(LiveJson)

const docKey = (projectId: string, subscriptionId: string) => `s.${projectId}.${subscriptionId}`
const liveKey = (projectId: string, subscriptionId: string) => `l.${projectId}.${subscriptionId}`
/** Set once every document written before the live rows existed has its row (see `indexOnce`). */
const INDEXED_KEY = "indexed.live"

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

  /** The live row follows its document: written with it, deleted once the subscription is removed. */
  const putLive = (view: SubscriptionListView) => {
    const key = liveKey(view.projectId, view.subscriptionId)
    const live = liveOfView(view)
    return tryKv(`put ${key}`, async () => {
      if (live === null) await kv.delete(key)
      else await putUnlessLater(kv, key, encodeLive(live), view.lastSeq)
    })
  }

  /**
   * Documents written before the live rows existed get theirs once (a bucket of that time has no marker): so a live
   * subscription whose subject stays quiet is still listed. Safe to repeat: a row is only written with its document's.
   */
  const indexOnce = Effect.gen(function* () {
    const marker = yield* tryKv("get the live index marker", () => kv.get(INDEXED_KEY))
    if (marker !== null && marker.operation === "PUT") return
    const keys = yield* tryKv("list s.>", () => distinctKeys(kv, "s.>"))
    yield* Effect.forEach(
      keys,
      (key) => Effect.flatMap(readView(kv, key), (view) => (Option.isSome(view) ? putLive(view.value) : Effect.void)),
      {
        concurrency: 8,
        discard: true
      }
    )
    yield* tryKv("set the live index marker", () => kv.put(INDEXED_KEY, String(keys.length)))
  })
  yield* indexOnce

  return SubscriptionReadModel.of({
    get: (projectId, subscriptionId) => readView(kv, docKey(projectId, subscriptionId)),

    put: Effect.fn("KvSubscriptionReadModel.put")(function* (view) {
      const key = docKey(view.projectId, view.subscriptionId)
      const json = yield* encodeView(view).pipe(Effect.mapError(readModelError(`encode ${key}`)))
      const put = yield* tryKv(`put ${key}`, () => putUnlessLater(kv, key, json, view.lastSeq))
      if (put.written) yield* putLive(view)
    }),

    listLive: Effect.fn("KvSubscriptionReadModel.listLive")(function* () {
      const keys = yield* tryKv("list l.>", () => distinctKeys(kv, "l.>"))
      const rows = yield* Effect.forEach(keys, (key) => tryKv(`get ${key}`, () => kv.get(key)), { concurrency: 16 })
      return rows.flatMap((entry) => {
        if (entry === null || entry.operation !== "PUT") return []
        const live = decodeLive(entry.string())
        return Option.isSome(live) ? [live.value] : []
      })
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
