// ResolvedInfoStore in process memory, for unit tests: entries expire after the media lifetime by the Effect clock.
import { Clock, Effect, Layer, Option } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { ResolvedInfoStore } from "./ResolvedInfoStore.ts"

export const MemoryResolvedInfoStore = {
  layer: Layer.effect(
    ResolvedInfoStore,
    Effect.gen(function* () {
      const { mediaMs } = yield* Lifetimes
      const entries = new Map<string, { readonly info: string; readonly expiresAt: number }>()
      return ResolvedInfoStore.of({
        put: (mediaId, info) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            entries.set(mediaId, { info, expiresAt: now + mediaMs })
          }),
        get: (mediaId) =>
          Effect.map(Clock.currentTimeMillis, (now) => {
            const entry = entries.get(mediaId)
            if (entry === undefined) return Option.none()
            if (entry.expiresAt <= now) {
              entries.delete(mediaId)
              return Option.none()
            }
            return Option.some(entry.info)
          })
      })
    })
  )
}
