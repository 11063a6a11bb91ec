// The in-memory ResolvedInfoStore: the shared contract, and expiry after the media lifetime on the test clock.
import { assert, it } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { TestClock } from "effect/testing"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { MemoryResolvedInfoStore } from "./MemoryResolvedInfoStore.ts"
import { resolvedInfoStoreContract } from "./ResolvedInfoStore.contract.ts"
import { ResolvedInfoStore } from "./ResolvedInfoStore.ts"

const lifetimes = Layer.succeed(Lifetimes, { mediaMs: 60_000, jobMs: 60_000, downloadUrlMs: 60_000, maxConcurrentJobs: 2 })
const memory = MemoryResolvedInfoStore.layer.pipe(Layer.provide(lifetimes))

resolvedInfoStoreContract("memory", memory)

it.effect("an entry is gone once the media lifetime has passed", () =>
  Effect.gen(function* () {
    const store = yield* ResolvedInfoStore
    yield* store.put("med_a", "{}")
    yield* TestClock.adjust("59 seconds")
    assert.deepStrictEqual(yield* store.get("med_a"), Option.some("{}"))
    yield* TestClock.adjust("1 second")
    assert.isTrue(Option.isNone(yield* store.get("med_a")))
  }).pipe(Effect.provide(memory))
)
