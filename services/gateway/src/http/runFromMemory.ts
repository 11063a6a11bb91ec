// Runs a route's effect synchronously and only falls back to waiting when it turns asynchronous (a cache miss).
import { Cause, type Effect, Exit, type ManagedRuntime, Result } from "effect"

/**
 * For routes that are answered from memory nearly always (a polled job): the effect runs to its end in the calling
 * tick, with no promise or scheduler hop. When it does wait for I/O, the same fiber goes on and its exit is awaited,
 * so nothing runs twice. Only for short effects: once asynchronous, the fiber continues on microtasks.
 */
export const runFromMemory = <A, E, R>(
  runtime: ManagedRuntime.ManagedRuntime<R, never>,
  effect: Effect.Effect<A, E, R>
): Exit.Exit<A, E> | Promise<Exit.Exit<A, E>> => {
  const exit = runtime.runSyncExit(effect)
  if (Exit.isSuccess(exit)) return exit
  const defect = Cause.findDefect(exit.cause)
  if (Result.isSuccess(defect) && Cause.isAsyncFiberError(defect.success)) {
    const fiber = defect.success.fiber
    return new Promise((resolve) => fiber.addObserver((fiberExit) => resolve(fiberExit as Exit.Exit<A, E>)))
  }
  return exit
}
