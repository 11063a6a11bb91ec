// Fleet-wide pacing per platform with NATS KV leases: a run holds one of N run keys, and each yt-dlp start takes one of
// M start keys that expire a minute later. Keys are created only if absent (compare-and-set), so two extractors never
// hold the same one; a lease an extractor stops renewing (it died) expires after the bucket's lifetime.
import { randomUUID } from "node:crypto"
import { Clock, Config, Context, Deferred, Effect, Layer, Option, Schema, type Scope } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import type { LeaseBucket } from "./LeaseBucket.ts"
import { keepLeaseRenewed } from "./LeaseRenewal.ts"
import { openConnectionsBucket, openPacingBuckets } from "./PacingBuckets.ts"
import { limitOf, parsePlatformCounts } from "./PlatformLimits.ts"

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

/** A run admitted by pacing. */
export interface PacedRun {
  /** Completes when the run's lease is lost for good (see LeaseRenewal): the run must stop. Never, for an unlimited platform. */
  readonly lost: Effect.Effect<void>
}

const UNLIMITED: PacedRun = { lost: Effect.never }

export interface PacingSettings {
  readonly concurrent: ReadonlyMap<string, number>
  readonly startsPerMinute: ReadonlyMap<string, number>
  /** Connections (HLS/DASH fragments fetched at once) the fleet's runs of a platform may hold together. */
  readonly connections: ReadonlyMap<string, number>
  readonly retryDelayMs: number
}

export interface PlatformPacingShape {
  /**
   * A run when the platform has room for one more (its lease is held and renewed until the scope closes, and one start
   * key is taken for its first yt-dlp start); none when the platform is at its limit: nothing is held and the caller
   * hands the job back to wait. Never fails: if KV cannot be reached the run waits like one over its limit.
   */
  admit(platform: string, runId: string): Effect.Effect<Option.Option<PacedRun>, never, Scope.Scope>
  /** `admit`, tried again every `retryDelayMs` until the platform has room (resolves wait; their timeout bounds it). */
  admitWhenFree(platform: string, runId: string): Effect.Effect<PacedRun, never, Scope.Scope>
  /**
   * Before every yt-dlp start of an admitted run (retries and anti-bot retries included): uses the start key taken at
   * admission, or takes a new one, waiting `retryDelayMs` at a time while the platform's minute is full.
   */
  start(platform: string, runId: string): Effect.Effect<void>
  /**
   * How many of `wanted` connections (the HLS/DASH fragments a run fetches at once) the platform's connection budget
   * grants the run, held and renewed until the scope closes: `wanted` for a platform without a budget, 0 when none is
   * free (the job then waits like one over its limit).
   */
  connections(platform: string, runId: string, wanted: number): Effect.Effect<number, never, Scope.Scope>
  /** How long a job that was not admitted waits before it is offered again. */
  readonly retryDelayMs: number
}

/** Pacing over two buckets (runs, starts; null: no run or start is paced) and the connections' (null: no budget). */
export const makePlatformPacing = (
  settings: PacingSettings,
  buckets: { readonly runs: LeaseBucket; readonly starts: LeaseBucket } | null,
  connectionBucket: LeaseBucket | null = null
): PlatformPacingShape => {
  const holder = randomUUID()
  /** Runs whose start key taken at admission is not used yet. */
  const startCredits = new Set<string>()

  /** The first of `count` keys nobody holds, created for this run; null when all are held. */
  const claim = (bucket: LeaseBucket, platform: string, count: number, value: string) =>
    Effect.gen(function* () {
      for (let index = 0; index < count; index++) {
        const key = keyOf(platform, index)
        const revision = yield* bucket.create(key, value)
        if (revision !== null) return { key, revision }
      }
      return null
    })

  const leaseValue = (runId: string) => Effect.map(Clock.currentTimeMillis, (at) => JSON.stringify({ holder, runId, at }))

  const admit = (platform: string, runId: string): Effect.Effect<Option.Option<PacedRun>, never, Scope.Scope> =>
    Effect.gen(function* () {
      const limit = limitOf(settings.concurrent, settings.startsPerMinute, platform)
      if (buckets === null || (limit.concurrent === null && limit.startsPerMinute === null)) return Option.some(UNLIMITED)
      const value = yield* leaseValue(runId)
      const lease = limit.concurrent === null ? null : yield* claim(buckets.runs, platform, limit.concurrent, value)
      if (limit.concurrent !== null && lease === null) return Option.none()
      const releaseLease = lease === null ? Effect.void : buckets.runs.release(lease.key, lease.revision)
      if (limit.startsPerMinute !== null) {
        // The start key is never released: it expires a minute after it was taken, which is the window.
        const started = yield* claim(buckets.starts, platform, limit.startsPerMinute, value).pipe(Effect.onError(() => releaseLease))
        if (started === null) {
          yield* releaseLease
          return Option.none()
        }
        startCredits.add(runId)
        yield* Effect.addFinalizer(() => Effect.sync(() => startCredits.delete(runId)))
      }
      if (lease === null) return Option.some(UNLIMITED)
      const lost = yield* Deferred.make<void>()
      yield* Effect.addFinalizer(() => buckets.runs.release(lease.key, lease.revision))
      yield* keepLeaseRenewed(buckets.runs, lease.key, value, lease.revision, Math.max(250, Math.floor(buckets.runs.ttlMs / 10))).pipe(
        Effect.tap((loss) => Effect.logWarning("pacing lease lost; the run stops", { platform, runId, loss })),
        Effect.andThen(Deferred.succeed(lost, undefined)),
        Effect.forkScoped
      )
      return Option.some({ lost: Deferred.await(lost) })
    }).pipe(
      Effect.catchCause((cause) => Effect.logWarning("pacing lease failed; the run waits", cause).pipe(Effect.as(Option.none<PacedRun>())))
    )

  const admitWhenFree = (platform: string, runId: string): Effect.Effect<PacedRun, never, Scope.Scope> =>
    Effect.flatMap(admit(platform, runId), (admitted) =>
      Option.isSome(admitted)
        ? Effect.succeed(admitted.value)
        : Effect.logDebug("platform at its pacing limit; the run waits", { platform, runId }).pipe(
            Effect.andThen(Effect.sleep(settings.retryDelayMs)),
            Effect.andThen(admitWhenFree(platform, runId))
          )
    )

  const start = (platform: string, runId: string): Effect.Effect<void> =>
    Effect.gen(function* () {
      const limit = settings.startsPerMinute.get(platform) ?? null
      if (buckets === null || limit === null) return
      if (startCredits.delete(runId)) return
      for (;;) {
        const value = yield* leaseValue(runId)
        const started = yield* claim(buckets.starts, platform, limit, value).pipe(
          Effect.catchCause((cause) => Effect.logWarning("pacing start key failed; the start waits", cause).pipe(Effect.as(null)))
        )
        if (started !== null) return
        yield* Effect.logDebug("platform's starts this minute used up; the start waits", { platform, runId })
        yield* Effect.sleep(settings.retryDelayMs)
      }
    })

  /** One key per connection, taken like run keys (created only if absent), each renewed until the scope closes. */
  const connections = (platform: string, runId: string, wanted: number): Effect.Effect<number, never, Scope.Scope> =>
    Effect.gen(function* () {
      const budget = settings.connections.get(platform)
      if (connectionBucket === null || budget === undefined) return wanted
      const value = yield* leaseValue(runId)
      let held = 0
      while (held < Math.min(wanted, budget)) {
        const lease = yield* claim(connectionBucket, platform, budget, value)
        if (lease === null) break
        held++
        yield* Effect.addFinalizer(() => connectionBucket.release(lease.key, lease.revision))
        // A connection key lost mid-run only means the budget is briefly exceeded by this run: said, not fatal.
        yield* keepLeaseRenewed(
          connectionBucket,
          lease.key,
          value,
          lease.revision,
          Math.max(250, Math.floor(connectionBucket.ttlMs / 10))
        ).pipe(
          Effect.tap((loss) => Effect.logWarning("connection lease lost", { platform, runId, loss })),
          Effect.forkScoped
        )
      }
      return held
    }).pipe(Effect.catchCause((cause) => Effect.logWarning("connection leases failed; the job waits", cause).pipe(Effect.as(0))))

  return { admit, admitWhenFree, start, connections, retryDelayMs: settings.retryDelayMs }
}

export class PlatformPacing extends Context.Service<PlatformPacing, PlatformPacingShape>()("mds/extractor/PlatformPacing") {
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
      const buckets = limited ? yield* openPacingBuckets(config.leaseMs).pipe(Effect.orDie) : null
      const connectionBucket = config.connections.size > 0 ? yield* openConnectionsBucket(config.leaseMs).pipe(Effect.orDie) : null
      return PlatformPacing.of(makePlatformPacing(config, buckets, connectionBucket))
    })
  )
}
