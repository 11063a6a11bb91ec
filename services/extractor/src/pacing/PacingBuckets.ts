// Opens the pacing buckets (runs, starts, connections); a bucket's lifetime has one owner: the extractor that created it.
import { Kvm } from "@nats-io/kv"
import { Effect } from "effect"
import { untilSettled } from "@mds/shared/nats/ClusterSettling"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { replicasOnStart } from "@mds/shared/nats/StreamReplicas"
import { type LeaseBucket, LeaseBucketError, kvLeaseBucket } from "./LeaseBucket.ts"

export const RUNS_BUCKET = "mds_pacing_runs"
export const STARTS_BUCKET = "mds_pacing_starts"
export const CONNECTIONS_BUCKET = "mds_pacing_connections"
/** A start key lives one minute: the window of PLATFORM_MAX_STARTS_PER_MINUTE. */
const START_WINDOW_MS = 60_000

/**
 * Creates the bucket with `ttlMs` if it is absent; an existing one keeps the lifetime it has (an extractor started with
 * another PACING_LEASE_SECONDS neither shortens nor lengthens every other extractor's leases) and the extractor
 * renews on that lifetime, saying so. Replicas are raised to NATS_REPLICAS as for every bucket.
 */
const openBucket = Effect.fn("openPacingBucket")(function* (bucket: string, ttlMs: number) {
  const { js, jsm, replicas } = yield* NatsClient
  // Safe to repeat: `create` opens a bucket a timed-out request created.
  const opened = yield* untilSettled(async () => {
    const kv = await new Kvm(js).create(bucket, { history: 1, ttl: ttlMs, replicas })
    const info = await jsm.streams.info(`KV_${bucket}`)
    const wanted = replicasOnStart(info.config.num_replicas, replicas)
    if (info.config.num_replicas !== wanted) await jsm.streams.update(`KV_${bucket}`, { ...info.config, num_replicas: wanted })
    // A bucket made without a max age (by hand) never expires keys: renewing on our own lifetime is then harmless.
    const inForce = Math.round(info.config.max_age / 1_000_000)
    return { kv, ttlMs: inForce > 0 ? inForce : ttlMs }
  }).pipe(
    Effect.mapError(
      (cause) => new LeaseBucketError({ operation: `open ${bucket}`, message: cause instanceof Error ? cause.message : String(cause) })
    )
  )
  if (opened.ttlMs !== ttlMs) {
    yield* Effect.logWarning("pacing bucket keeps the lifetime it was created with; this extractor's setting is not applied", {
      bucket,
      inForceMs: opened.ttlMs,
      configuredMs: ttlMs
    })
  }
  return kvLeaseBucket(opened.kv, opened.ttlMs)
})

export const openPacingBuckets = (
  leaseMs: number
): Effect.Effect<{ runs: LeaseBucket; starts: LeaseBucket }, LeaseBucketError, NatsClient> =>
  Effect.all({ runs: openBucket(RUNS_BUCKET, leaseMs), starts: openBucket(STARTS_BUCKET, START_WINDOW_MS) })

/** The connection budgets' keys live as long as a run's lease, and are renewed the same way. */
export const openConnectionsBucket = (leaseMs: number): Effect.Effect<LeaseBucket, LeaseBucketError, NatsClient> =>
  openBucket(CONNECTIONS_BUCKET, leaseMs)
