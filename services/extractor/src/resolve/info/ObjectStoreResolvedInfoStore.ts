// ResolvedInfoStore on a NATS Object Store bucket whose max age is the media lifetime, reachable by every replica.
import { type ObjectStore, Objm } from "@nats-io/obj"
import { nanos } from "@nats-io/transport-node"
import { Effect, Layer, Option, Schedule } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { alignBucketStream } from "@mds/shared/nats/StreamReplicas"
import { ResolvedInfoStore, ResolvedInfoStoreError } from "./ResolvedInfoStore.ts"

export const RESOLVED_INFO_BUCKET = "mds_resolved_info"

const storeError = (operation: string) => (cause: unknown) =>
  new ResolvedInfoStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

/** Opens or creates the bucket; a changed media lifetime in config is applied to the existing bucket's stream. */
const openBucket = Effect.fn("ResolvedInfoStore.openBucket")(function* (maxAgeMs: number) {
  const { js, jsm, replicas } = yield* NatsClient
  return yield* Effect.tryPromise({
    try: async (): Promise<ObjectStore> => {
      const bucket = await new Objm(js).create(RESOLVED_INFO_BUCKET, {
        ttl: nanos(maxAgeMs),
        replicas,
        description: "yt-dlp info JSON of resolved media, read by downloads by media_id"
      })
      await alignBucketStream(jsm, `OBJ_${RESOLVED_INFO_BUCKET}`, maxAgeMs, replicas)
      return bucket
    },
    catch: storeError("open bucket")
  }).pipe(
    // On a cluster that is still forming, or when extractors start together and race to create the bucket, the first
    // attempt can time out: retried for about 10 s before the start fails.
    Effect.retry({ schedule: Schedule.spaced("1 second"), times: 10 })
  )
})

const encoder = new TextEncoder()
const decoder = new TextDecoder()

export const ObjectStoreResolvedInfoStore = {
  layer: Layer.effect(
    ResolvedInfoStore,
    Effect.gen(function* () {
      const { mediaMs } = yield* Lifetimes
      const bucket = yield* openBucket(mediaMs)
      return ResolvedInfoStore.of({
        put: Effect.fn("ResolvedInfoStore.put")(function* (mediaId: string, info: string) {
          yield* Effect.tryPromise({
            try: () => bucket.putBlob({ name: mediaId }, encoder.encode(info)),
            catch: storeError("put")
          })
        }),
        get: Effect.fn("ResolvedInfoStore.get")(function* (mediaId: string) {
          const blob = yield* Effect.tryPromise({ try: () => bucket.getBlob(mediaId), catch: storeError("get") })
          return blob === null ? Option.none() : Option.some(decoder.decode(blob))
        })
      })
    })
  )
}
