// Repeats a read until its value passes a check (every 100 ms), or fails naming what it waited for and the last value.
// One rule for every tier: `eventually` for promise-based tests, `eventuallyEffect` inside `it.effect`.
import { Duration, Effect } from "effect"

const POLL_MS = 100
/** `what` may be a function, to add what is known only at the time (e.g. the services' logs). */
type What = string | (() => string)
const timedOut = (what: What, value: unknown) =>
  new Error(`timed out waiting for ${typeof what === "string" ? what : what()}: ${JSON.stringify(value)?.slice(0, 2000)}`)

export const eventually = async <A>(read: () => Promise<A>, done: (a: A) => boolean, what: What, timeoutMs = 15_000): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw timedOut(what, value)
    await new Promise((resolve) => setTimeout(resolve, POLL_MS))
  }
}

export const eventuallyEffect = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: What, timeoutMs = 15_000) =>
  Effect.gen(function*() {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const value = yield* check
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(timedOut(what, value))
      yield* Effect.sleep(Duration.millis(POLL_MS))
    }
  })
