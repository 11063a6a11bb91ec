// Fleet-wide pacing per platform with NATS KV leases: a run holds one of N run keys, and each start takes one of M
// start keys that expire a minute later. Keys are created only if absent (compare-and-set), so two extractors never
// hold the same one; a lease an extractor stops renewing (it died) expires after PACING_LEASE_SECONDS.
import { randomUUID } from "node:crypto"
import type { KV } from "@nats-io/kv"
import { Config, Context, Effect, Layer, Schedule, Schema, type Scope } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { openKvBucket } from "@mds/shared/readmodel/kv/KvBucket"
import { limitOf, parsePlatformCounts } from "./PlatformLimits.ts"

export const RUNS_BUCKET = "mds_pacing_runs"
export const STARTS_BUCKET = "mds_pacing_starts"
export const CONNECTIONS_BUCKET = "mds_pacing_connections"
const START_WINDOW_MS = 60_000

const PlatformCounts = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const parsed = parsePlatformCounts(text)
    return typeof parsed === "string" ? parsed : undefined
  })
)

/** A malformed list stops the extractor at start with the entry named, rather than pacing nothing. */
export const platformCounts = (name: string) =>
  Config.schema(PlatformCounts, name).pipe(
    Config.withDefault(""),
    Config.map((text) => parsePlatformCounts(text) as ReadonlyMap<string, number>)
  )

/** Key names hold only what a KV key may: a platform id outside that alphabet is encoded. */
const keyOf = (platform: string, index: number) =>
  `${platform.replace(/[^A-Za-z0-9_-]/g, (c) => `=${c.charCodeAt(0).toString(16)}`)}.${index}`

export class PlatformPacing extends Context.Service<
  PlatformPacing,
  {
    /**
     * True when the platform has room for one more run; the run's lease is then held until the scope closes. False
     * when the platform is at its limit: nothing is held and the caller hands the job back to wait.
     */
    admit(platform: string, jobId: string): Effect.Effect<boolean, never, Scope.Scope>
    /**
     * How many of `wanted` connections (the HLS/DASH fragments a run fetches at once) the platform's connection budget
     * grants the run, held until the scope closes: `wanted` for a platform without a budget, 0 when none is free (the
     * job then waits like one over its limit).
     */
    connections(platform: string, jobId: string, wanted: number): Effect.Effect<number, never, Scope.Scope>
    /** How long a job that was not admitted waits before it is offered again. */
    readonly retryDelayMs: number
  }
>()("mds/extractor/PlatformPacing") {
  static readonly config = Config.all({
    concurrent: platformCounts("PLATFORM_MAX_CONCURRENT"),
    startsPerMinute: platformCounts("PLATFORM_MAX_STARTS_PER_MINUTE"),
    connections: platformCounts("PLATFORM_MAX_CONNECTIONS"),
    leaseMs: secondsAsMs("PACING_LEASE_SECONDS", 30),
    retryDelayMs: secondsAsMs("PACING_RETRY_SECONDS", 5)
  })

  static readonly layer = Layer.effect(
    PlatformPacing,
    Effect.gen(function* () {
      const config = yield* PlatformPacing.config
      const limited = config.concurrent.size > 0 || config.startsPerMinute.size > 0
      // Without limits no bucket is opened: an extractor that paces nothing needs nothing from KV.
      const runs: KV | null = limited ? yield* openKvBucket(RUNS_BUCKET, config.leaseMs).pipe(Effect.orDie) : null
      const starts: KV | null = limited ? yield* openKvBucket(STARTS_BUCKET, START_WINDOW_MS).pipe(Effect.orDie) : null
      const holder = randomUUID()

      /** The first of `count` keys nobody holds, created for this run; null when all are held. */
      const claim = (kv: KV, platform: string, count: number, value: string) =>
        Effect.promise(async () => {
          for (let index = 0; index < count; index++) {
            const key = keyOf(platform, index)
            const revision = await kv.create(key, value).catch(() => null)
            if (revision !== null) return { key, revision }
          }
          return null
        })

      const admit = (platform: string, jobId: string): Effect.Effect<boolean, never, Scope.Scope> =>
        Effect.gen(function* () {
          const limit = limitOf(config.concurrent, config.startsPerMinute, platform)
          if (runs === null || starts === null || (limit.concurrent === null && limit.startsPerMinute === null)) return true
          const value = JSON.stringify({ holder, jobId, at: Date.now() })
          let lease: { key: string; revision: number } | null = null
          if (limit.concurrent !== null) {
            lease = yield* claim(runs, platform, limit.concurrent, value)
            if (lease === null) return false
          }
          const held = lease
          if (held !== null) {
            // Renewed well within its lifetime; released (only if still ours) when the run ends.
            yield* Effect.addFinalizer(() =>
              Effect.promise(() => runs.delete(held.key, { previousSeq: held.revision }).catch(() => undefined))
            )
            yield* Effect.promise(async () => {
              held.revision = await runs.update(held.key, value, held.revision)
            }).pipe(
              Effect.delay(Math.max(250, Math.floor(config.leaseMs / 3))),
              Effect.repeat(Schedule.forever),
              Effect.catchCause((cause) => Effect.logWarning("pacing lease could not be renewed", cause)),
              Effect.forkScoped
            )
          }
          if (limit.startsPerMinute !== null) {
            // The start key is never released: it expires a minute after it was taken, which is the window.
            const started = yield* claim(starts, platform, limit.startsPerMinute, value)
            if (started === null) return false
          }
          return true
        }).pipe(
          // Pacing must never fail a job: if KV cannot be reached the job waits like one over its limit.
          Effect.catchCause((cause) => Effect.logWarning("pacing lease failed; the job waits", cause).pipe(Effect.as(false)))
        )

      const connectionKeys: KV | null =
        config.connections.size > 0 ? yield* openKvBucket(CONNECTIONS_BUCKET, config.leaseMs).pipe(Effect.orDie) : null

      /** One key per connection, taken like run keys (created only if absent) and renewed together until the scope closes. */
      const connections = (platform: string, jobId: string, wanted: number): Effect.Effect<number, never, Scope.Scope> =>
        Effect.gen(function* () {
          const budget = config.connections.get(platform)
          if (connectionKeys === null || budget === undefined) return wanted
          const kv = connectionKeys
          const value = JSON.stringify({ holder, jobId, at: Date.now() })
          const held: Array<{ key: string; revision: number }> = []
          yield* Effect.addFinalizer(() =>
            Effect.promise(() =>
              Promise.all(held.map((lease) => kv.delete(lease.key, { previousSeq: lease.revision }).catch(() => undefined)))
            )
          )
          while (held.length < Math.min(wanted, budget)) {
            const lease = yield* claim(kv, platform, budget, value)
            if (lease === null) break
            held.push(lease)
          }
          if (held.length === 0) return 0
          yield* Effect.promise(() =>
            Promise.all(
              held.map(async (lease) => {
                lease.revision = await kv.update(lease.key, value, lease.revision)
              })
            )
          ).pipe(
            Effect.delay(Math.max(250, Math.floor(config.leaseMs / 3))),
            Effect.repeat(Schedule.forever),
            Effect.catchCause((cause) => Effect.logWarning("connection leases could not be renewed", cause)),
            Effect.forkScoped
          )
          return held.length
        }).pipe(Effect.catchCause((cause) => Effect.logWarning("connection leases failed; the job waits", cause).pipe(Effect.as(0))))

      return PlatformPacing.of({ admit, connections, retryDelayMs: config.retryDelayMs })
    })
  )
}
