// A read-model port implementation that sends every call to the store ReadModelStores names now, following switches.
import { Duration, Effect, Ref, type Scope } from "effect"
import type { ReadModelError } from "./ReadModelError.ts"
import { ReadModelStores } from "./ReadModelStores.ts"

/** How often a process looks the pointer up again; a rebuild waits a few of these before it drops the old store. */
export const POINTER_REFRESH_MS = 1_000

// Ports are records of methods returning Effects; that is all the delegation needs to know about them.
export type PortShape = { readonly [method: string]: (...args: ReadonlyArray<never>) => Effect.Effect<unknown, unknown> }

export interface FollowedStoreOptions<S, R> {
  /** Logical name, the key in ReadModelStores ("jobs", "media", "projects", "keys"). */
  readonly readModel: string
  /** The store used until a rebuild switched the pointer. */
  readonly fallback: string
  /** Opens the adapter on one concrete store; called once per store a process meets. */
  readonly open: (store: string) => Effect.Effect<S, ReadModelError, R>
  readonly refreshMs?: number
}

/**
 * Opens the current store's adapter and returns an object of the same shape whose methods each resolve the store
 * first. A failed refresh keeps the last known store (the next one tries again).
 */
export const followStore = <S extends PortShape, R>(
  options: FollowedStoreOptions<S, R>
): Effect.Effect<S, ReadModelError, ReadModelStores | Scope.Scope | R> =>
  Effect.gen(function* () {
    const stores = yield* ReadModelStores
    // Stores met after a switch are opened later, inside a method call: with the services this layer was built with.
    const context = yield* Effect.context<R>()
    const opened = new Map<string, S>()
    const adapterFor = (store: string) =>
      Effect.suspend(() => {
        const known = opened.get(store)
        return known !== undefined
          ? Effect.succeed(known)
          : Effect.tap(Effect.provideContext(options.open(store), context), (adapter) => Effect.sync(() => opened.set(store, adapter)))
      })

    const current = yield* Ref.make(yield* stores.current(options.readModel, options.fallback))
    const first = yield* adapterFor(yield* Ref.get(current))

    const refresh = stores.current(options.readModel, options.fallback).pipe(
      Effect.flatMap((store) => Ref.set(current, store)),
      Effect.catch((error) =>
        Effect.logWarning("read-model pointer refresh failed", { readModel: options.readModel, message: error.message })
      )
    )
    yield* Effect.forkScoped(
      Effect.forever(Effect.andThen(Effect.sleep(Duration.millis(options.refreshMs ?? POINTER_REFRESH_MS)), refresh))
    )

    const delegate: Record<string, unknown> = {}
    for (const method of Object.keys(first)) {
      delegate[method] = (...args: ReadonlyArray<never>) =>
        Effect.flatMap(Effect.flatMap(Ref.get(current), adapterFor), (adapter) => adapter[method]!(...args))
    }
    return delegate as S
  })
