// ReadModelStores kept in process memory: for tests; passes the same contract suite as the KV and MongoDB adapters.
import { Effect, Layer, Ref } from "effect"
import { ReadModelStores } from "../ReadModelStores.ts"

export const InMemoryReadModelStores = {
  layer: Layer.effect(
    ReadModelStores,
    Effect.gen(function* () {
      const pointers = yield* Ref.make(new Map<string, string>())
      return ReadModelStores.of({
        current: (readModel, fallback) => Ref.get(pointers).pipe(Effect.map((map) => map.get(readModel) ?? fallback)),
        switchTo: (readModel, store, fallback) =>
          Ref.modify(pointers, (map) => [map.get(readModel) ?? fallback, new Map(map).set(readModel, store)]),
        drop: () => Effect.void
      })
    })
  )
}
