// Port: which physical store (KV bucket, MongoDB collection) each read model lives in; a rebuild switches and drops them.
import { Context, type Effect } from "effect"
import type { ReadModelError } from "./ReadModelError.ts"

/**
 * Readers and writers look a read model up by its logical name ("jobs", "media") and follow the answer, so a
 * rebuild can fill a new store beside the live one and then switch everyone over with one write.
 */
export class ReadModelStores extends Context.Service<
  ReadModelStores,
  {
    /** The store `readModel` uses now; `fallback` (the default store) until a rebuild switched it. */
    current(readModel: string, fallback: string): Effect.Effect<string, ReadModelError>
    /** Points `readModel` at `store` and returns the store it used before. */
    switchTo(readModel: string, store: string, fallback: string): Effect.Effect<string, ReadModelError>
    /** Deletes a store and everything in it; deleting a missing store is harmless. */
    drop(store: string): Effect.Effect<void, ReadModelError>
  }
>()("mds/readmodel/ReadModelStores") {}
