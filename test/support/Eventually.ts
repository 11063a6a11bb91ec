// Repeats a read until its value passes a check (every 100 ms), or dies naming what it waited for and the last value.
import { Duration, Effect } from "effect"

export const eventually = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: string, timeoutMs = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const value = yield* check
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(new Error(`timed out waiting for ${what}: ${JSON.stringify(value)}`))
      yield* Effect.sleep(Duration.millis(100))
    }
  })
