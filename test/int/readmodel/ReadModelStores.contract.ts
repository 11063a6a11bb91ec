// Behaviour every ReadModelStores adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { randomUUID } from "node:crypto"
import { ReadModelStores } from "@mds/shared/readmodel/ReadModelStores"

export const readModelStoresContract = (name: string, adapter: Layer.Layer<ReadModelStores, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`ReadModelStores contract: ${name}`, (it) => {
    it.effect("a read model never switched uses its default store", () =>
      Effect.gen(function* () {
        const stores = yield* ReadModelStores
        assert.strictEqual(yield* stores.current(`rm_${randomUUID().slice(0, 8)}`, "default_store"), "default_store")
      })
    )

    it.effect("switchTo answers the store used before and moves the read model for good", () =>
      Effect.gen(function* () {
        const stores = yield* ReadModelStores
        const readModel = `rm_${randomUUID().slice(0, 8)}`
        assert.strictEqual(yield* stores.switchTo(readModel, "store_r1", "default_store"), "default_store")
        assert.strictEqual(yield* stores.current(readModel, "default_store"), "store_r1")
        assert.strictEqual(yield* stores.switchTo(readModel, "store_r2", "default_store"), "store_r1")
        assert.strictEqual(yield* stores.current(readModel, "default_store"), "store_r2")
      })
    )

    it.effect("each read model has its own pointer", () =>
      Effect.gen(function* () {
        const stores = yield* ReadModelStores
        const switched = `rm_${randomUUID().slice(0, 8)}`
        const other = `rm_${randomUUID().slice(0, 8)}`
        yield* stores.switchTo(switched, "store_r1", "default_a")
        assert.strictEqual(yield* stores.current(other, "default_b"), "default_b")
      })
    )

    it.effect("dropping a store that does not exist is harmless", () =>
      Effect.gen(function* () {
        const stores = yield* ReadModelStores
        yield* stores.drop(`never_created_${Date.now()}`)
      })
    )
  })
