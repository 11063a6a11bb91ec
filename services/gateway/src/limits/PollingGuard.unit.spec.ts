// Given a key's answered polls at given times, then whether its next poll of a job is on time (no waiting: time is an argument).
import { assert, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { PollingGuard } from "./PollingGuard.ts"

const guard = PollingGuard.layer.pipe(
  Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ API_MIN_POLL_INTERVAL_SECONDS: "2" })))
)

it.effect("a second poll of the same job within 2 s is too fast; after the interval it is on time again", () =>
  Effect.gen(function* () {
    const polls = yield* PollingGuard
    assert.isUndefined(polls.check("key_a", "job_a", 10_000))
    polls.record("key_a", "job_a", 10_000)
    const tooFast = polls.check("key_a", "job_a", 10_500)
    assert.strictEqual(tooFast?.retryAfterSeconds, 2)
    assert.strictEqual(tooFast?.minIntervalSeconds, 2)
    assert.isUndefined(polls.check("key_a", "job_a", 12_000))
  }).pipe(Effect.provide(guard))
)

it.effect("the rule is per key and per job, and only answered polls count", () =>
  Effect.gen(function* () {
    const polls = yield* PollingGuard
    polls.record("key_a", "job_a", 10_000)
    assert.isUndefined(polls.check("key_b", "job_a", 10_100))
    assert.isUndefined(polls.check("key_a", "job_b", 10_100))
    // A poll that was refused is not recorded, so it does not push the next allowed time back.
    assert.isDefined(polls.check("key_a", "job_a", 11_000))
    assert.isUndefined(polls.check("key_a", "job_a", 12_000))
  }).pipe(Effect.provide(guard))
)
