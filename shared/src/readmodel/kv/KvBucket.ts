// Opens (or creates) a NATS KV bucket with one value per key and a max age, keeping the age in line with config.
import { nanos } from "@nats-io/transport-node"
import { type KV, Kvm } from "@nats-io/kv"
import { Effect } from "effect"
import { NatsClient } from "../../nats/NatsClient.ts"
import { replicasOnStart } from "../../nats/StreamReplicas.ts"
import { ReadModelError } from "../ReadModelError.ts"

export const readModelError = (operation: string) => (cause: unknown) =>
  new ReadModelError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

/**
 * Read models keep only the latest document per key: history 1; documents vanish `maxAgeMs` after their last write
 * (0: never). Created with NATS_REPLICAS replicas; an existing bucket is raised to them, never lowered.
 */
export const openKvBucket = Effect.fn("openKvBucket")(function* (bucket: string, maxAgeMs: number) {
  const { js, jsm, replicas } = yield* NatsClient
  return yield* Effect.tryPromise({
    try: async (): Promise<KV> => {
      const kv = await new Kvm(js).create(bucket, { history: 1, ttl: maxAgeMs, replicas })
      // `create` opens an existing bucket as it is; a changed lifetime or replica count in config must still apply.
      const stream = `KV_${bucket}`
      const info = await jsm.streams.info(stream)
      const wantedReplicas = replicasOnStart(info.config.num_replicas, replicas)
      if (info.config.max_age !== nanos(maxAgeMs) || info.config.num_replicas !== wantedReplicas) {
        await jsm.streams.update(stream, { ...info.config, max_age: nanos(maxAgeMs), num_replicas: wantedReplicas })
      }
      return kv
    },
    catch: readModelError(`open bucket ${bucket}`)
  })
})
