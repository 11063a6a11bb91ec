// ReadModelStores on NATS KV: bucket mds_readmodels maps a read model's name to the KV bucket that holds it.
import { Effect, Layer } from "effect"
import { NatsClient } from "../../nats/NatsClient.ts"
import { openKvBucket, readModelError } from "./KvBucket.ts"
import { ReadModelStores } from "../ReadModelStores.ts"

export const READ_MODEL_STORES_BUCKET = "mds_readmodels"

const isMissingStream = (cause: unknown) => cause instanceof Error && /stream not found/i.test(cause.message)

export const makeKvReadModelStores = Effect.fn("makeKvReadModelStores")(function* (bucket: string) {
  const { jsm } = yield* NatsClient
  // Pointers never expire: losing one would send readers back to the default store.
  const kv = yield* openKvBucket(bucket, 0)
  const current = (readModel: string, fallback: string) =>
    Effect.tryPromise({ try: () => kv.get(readModel), catch: readModelError(`get pointer ${readModel}`) }).pipe(
      Effect.map((entry) => (entry !== null && entry.operation === "PUT" && entry.string() !== "" ? entry.string() : fallback))
    )
  return ReadModelStores.of({
    current,
    switchTo: Effect.fn("KvReadModelStores.switchTo")(function* (readModel: string, store: string, fallback: string) {
      const before = yield* current(readModel, fallback)
      yield* Effect.tryPromise({ try: () => kv.put(readModel, store), catch: readModelError(`switch ${readModel}`) })
      return before
    }),
    drop: (store) =>
      Effect.tryPromise({
        try: () =>
          jsm.streams.delete(`KV_${store}`).then(
            () => undefined,
            (cause) => (isMissingStream(cause) ? undefined : Promise.reject(cause))
          ),
        catch: readModelError(`drop bucket ${store}`)
      })
  })
})

export const KvReadModelStores = {
  layer: Layer.effect(ReadModelStores, makeKvReadModelStores(READ_MODEL_STORES_BUCKET)),
  layerWithBucket: (bucket: string) => Layer.effect(ReadModelStores, makeKvReadModelStores(bucket))
}
