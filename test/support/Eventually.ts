// Repeats a read until its value passes a check (every 100 ms unless told), or fails naming what it waited for and the last value.
// One rule for every tier: `eventually` for promise-based tests, `eventuallyEffect` inside `it.effect`.
import { Duration, Effect } from "effect"

const POLL_MS = 100
/** `what` may be a function, to add what is known only at the time (e.g. the services' logs). */
type What = string | (() => string)
const timedOut = (what: What, value: unknown) =>
  new Error(`timed out waiting for ${typeof what === "string" ? what : what()}: ${JSON.stringify(value)?.slice(0, 2000)}`)

/** `pollMs` below 100 only where the wait itself is measured (a propagation bound). */
export const eventually = async <A>(
  read: () => Promise<A>,
  done: (a: A) => boolean,
  what: What,
  timeoutMs = 15_000,
  pollMs = POLL_MS
): Promise<A> => {
  const deadline = Date.now() + timeoutMs
  while (true) {
    const value = await read()
    if (done(value)) return value
    if (Date.now() > deadline) throw timedOut(what, value)
    await new Promise((resolve) => setTimeout(resolve, pollMs))
  }
}

export const eventuallyEffect = <A, E, R>(check: Effect.Effect<A, E, R>, done: (a: A) => boolean, what: What, timeoutMs = 15_000) =>
  Effect.gen(function* () {
    const deadline = Date.now() + timeoutMs
    while (true) {
      const value = yield* check
      if (done(value)) return value
      if (Date.now() > deadline) return yield* Effect.die(timedOut(what, value))
      yield* Effect.sleep(Duration.millis(POLL_MS))
    }
  })

/**
 * eventually, for reads that fail for a while (a server restarting, a node killed): a read that throws is tried again
 * like one whose value does not pass, and the last failure is named if time runs out.
 */
export const eventuallyDespiteFailures = async <A>(
  read: () => Promise<A>,
  done: (a: A) => boolean,
  what: What,
  timeoutMs = 15_000
): Promise<A> => {
  let failure: unknown = null
  const attempt = await eventually(
    async () => {
      try {
        return { read: true as const, value: await read() }
      } catch (error) {
        failure = error
        return { read: false as const }
      }
    },
    (result) => result.read && done(result.value),
    () => `${typeof what === "string" ? what : what()} (last failure: ${String(failure)})`,
    timeoutMs
  )
  return (attempt as { readonly value: A }).value
}
