// Given pacing over in-memory buckets on the test clock: leases outlive failed renewals, are lost only for good, and every start takes a key.
import { assert, it } from "@effect/vitest"
import { Effect, Fiber, Option, type Scope } from "effect"
import { TestClock } from "effect/testing"
import { makeMemoryLeaseBucket } from "./MemoryLeaseBucket.ts"
import { makePlatformPacing, type PacedRun } from "./PlatformPacing.ts"

const LEASE_MS = 30_000

const setup = (limits: { concurrent?: number; starts?: number }) => {
  const runs = makeMemoryLeaseBucket(LEASE_MS)
  const starts = makeMemoryLeaseBucket(60_000)
  const pacing = makePlatformPacing(
    {
      concurrent: new Map(limits.concurrent === undefined ? [] : [["generic", limits.concurrent]]),
      startsPerMinute: new Map(limits.starts === undefined ? [] : [["generic", limits.starts]]),
      connections: new Map(),
      retryDelayMs: 1_000
    },
    { runs, starts }
  )
  return { runs, starts, pacing }
}

/** Lets `ms` of test-clock time pass a second at a time, so every renewal and retry on the way runs. */
const pass = (ms: number) =>
  Effect.gen(function* () {
    for (let at = 0; at < ms; at += 1_000) yield* TestClock.adjust(1_000)
  })

const isLost = (run: PacedRun) => Effect.raceFirst(run.lost.pipe(Effect.as(true)), Effect.yieldNow.pipe(Effect.as(false)))

const admitted = (effect: Effect.Effect<Option.Option<PacedRun>, never, Scope.Scope>) =>
  Effect.flatMap(effect, (run) => (Option.isSome(run) ? Effect.succeed(run.value) : Effect.die("not admitted")))

it.effect("a renewal that fails once is retried: the lease outlives three lifetimes and a second run is still refused", () =>
  Effect.gen(function* () {
    const { runs, pacing } = setup({ concurrent: 1 })
    const first = yield* admitted(pacing.admit("generic", "a"))
    runs.failUpdates(1)
    yield* pass(3 * LEASE_MS)
    assert.isFalse(yield* isLost(first))
    const second = yield* Effect.scoped(pacing.admit("generic", "b"))
    assert.isTrue(Option.isNone(second))
  }).pipe(Effect.scoped)
)

it.effect("a lease no renewal reached for a whole lifetime is lost, and the run is told to stop", () =>
  Effect.gen(function* () {
    const { runs, pacing } = setup({ concurrent: 1 })
    const first = yield* admitted(pacing.admit("generic", "a"))
    runs.failUpdates(1_000)
    yield* pass(LEASE_MS / 2)
    assert.isFalse(yield* isLost(first))
    yield* pass(LEASE_MS)
    assert.isTrue(yield* isLost(first))
  }).pipe(Effect.scoped)
)

it.effect("a lease another run took over is lost at the next renewal", () =>
  Effect.gen(function* () {
    const { runs, pacing } = setup({ concurrent: 1 })
    const first = yield* admitted(pacing.admit("generic", "a"))
    runs.drop("generic.0")
    yield* admitted(pacing.admit("generic", "b"))
    yield* pass(LEASE_MS / 3 + 1_000)
    assert.isTrue(yield* isLost(first))
  }).pipe(Effect.scoped)
)

it.effect("every start takes a start key: the admission's for the first, then new ones, waiting while the minute is full", () =>
  Effect.gen(function* () {
    const { starts, pacing } = setup({ starts: 2 })
    yield* admitted(pacing.admit("generic", "a"))
    assert.deepStrictEqual(yield* starts.liveKeys, ["generic.0"])
    yield* pacing.start("generic", "a")
    assert.deepStrictEqual(yield* starts.liveKeys, ["generic.0"])
    yield* pacing.start("generic", "a")
    assert.deepStrictEqual((yield* starts.liveKeys).toSorted(), ["generic.0", "generic.1"])
    const third = yield* Effect.forkChild(pacing.start("generic", "a"))
    yield* pass(30_000)
    assert.isUndefined(third.pollUnsafe())
    yield* pass(31_000)
    yield* Fiber.join(third)
  }).pipe(Effect.scoped)
)
