// Behaviour every ResolvedInfoStore adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { newId } from "@mds/shared/ids/Ids"
import { ResolvedInfoStore } from "./ResolvedInfoStore.ts"

/** Big enough to span several object-store chunks (128 KiB each), with text outside ASCII. */
const largeInfo = () =>
  JSON.stringify({
    id: "x",
    title: "Überlänge ✓",
    formats: Array.from({ length: 4000 }, (_, i) => ({ format_id: `f${i}`, url: `https://cdn.example/${i}?sig=${"a".repeat(40)}` }))
  })

export const resolvedInfoStoreContract = (name: string, adapter: Layer.Layer<ResolvedInfoStore, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`ResolvedInfoStore contract: ${name}`, (it) => {
    it.effect("get of an unknown media id is none", () =>
      Effect.gen(function* () {
        const store = yield* ResolvedInfoStore
        assert.isTrue(Option.isNone(yield* store.get(newId("med"))))
      })
    )

    it.effect("put then get returns the same text, also when it is large", () =>
      Effect.gen(function* () {
        const store = yield* ResolvedInfoStore
        const mediaId = newId("med")
        const info = largeInfo()
        assert.isAbove(info.length, 300_000)
        yield* store.put(mediaId, info)
        assert.deepStrictEqual(yield* store.get(mediaId), Option.some(info))
      })
    )

    it.effect("a second put replaces the first; other media are untouched", () =>
      Effect.gen(function* () {
        const store = yield* ResolvedInfoStore
        const first = newId("med")
        const second = newId("med")
        yield* store.put(first, `{"v":1}`)
        yield* store.put(second, `{"other":true}`)
        yield* store.put(first, `{"v":2}`)
        assert.deepStrictEqual(yield* store.get(first), Option.some(`{"v":2}`))
        assert.deepStrictEqual(yield* store.get(second), Option.some(`{"other":true}`))
      })
    )
  })
