// Opens (or creates) a NATS KV bucket with one value per key and a max age, keeping the age in line with config.
import { type KV, Kvm } from "@nats-io/kv"
import { Effect } from "effect"
import { untilSettled } from "../../nats/ClusterSettling.ts"
import { NatsClient } from "../../nats/NatsClient.ts"
import { alignBucketStream } from "../../nats/StreamReplicas.ts"
import { ReadModelError } from "../ReadModelError.ts"
import { isUnavailable } from "../../runtime/Unavailable.ts"

export const readModelError = (operation: string) => (cause: unknown) =>
  new ReadModelError({ operation, message: cause instanceof Error ? cause.message : String(cause), unavailable: isUnavailable(cause) })

/**
 * Read models keep only the latest document per key: history 1; documents vanish `maxAgeMs` after their last write
 * (0: never). Created with NATS_REPLICAS replicas; an existing bucket is raised to them, never lowered.
 */
export const openKvBucket = Effect.fn("openKvBucket")(function* (bucket: string, maxAgeMs: number) {
  const { js, jsm, replicas } = yield* NatsClient
  // Safe to repeat: `create` opens a bucket a timed-out request created.
  return yield* untilSettled(async (): Promise<KV> => {
    const kv = await new Kvm(js).create(bucket, { history: 1, ttl: maxAgeMs, replicas })
    await alignBucketStream(jsm, `KV_${bucket}`, maxAgeMs, replicas)
    return kv
  }).pipe(Effect.mapError(readModelError(`open bucket ${bucket}`)))
})

/**
 * The keys matching `filter`, each once. The client's listing follows the bucket until nothing is pending, so a key
 * written while it runs is delivered again (a job's progress during a dashboard refresh listed the job twice).
 */
export const distinctKeys = async (kv: KV, filter: string): Promise<ReadonlyArray<string>> => {
  const found = new Set<string>()
  for await (const key of await kv.keys(filter)) found.add(key)
  return [...found]
}
