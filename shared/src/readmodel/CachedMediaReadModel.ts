// A MediaReadModel in front of another: resolved media never change, so unexpired ones are kept in process memory.
import { Clock, Effect, Layer, Option } from "effect"
import type { MediaResolved } from "../domain/media/MediaEvent.ts"
import { MediaReadModel } from "./MediaReadModel.ts"

/** Per map; a few KB per media, so some tens of MB at most. Evicted in insertion order. */
const CAPACITY = 10_000

const remember = (map: Map<string, MediaResolved>, key: string, media: MediaResolved) => {
  map.delete(key)
  map.set(key, media)
  if (map.size > CAPACITY) {
    const oldest = map.keys().next()
    if (oldest.done !== true) map.delete(oldest.value)
  }
}

/**
 * A media is immutable once resolved, so a cached one is exact until it expires; expired ones are read from the
 * store again (a URL may have been resolved anew meanwhile). A URL's cached media may be older than one another
 * process resolved later, which is still a valid, unexpired answer for it.
 */
export const CachedMediaReadModel = {
  /** Needs the MediaReadModel to cache (e.g. KvMediaReadModel.layer) and provides the cached one. */
  layer: Layer.effect(
    MediaReadModel,
    Effect.gen(function* () {
      const inner = yield* MediaReadModel
      const byId = new Map<string, MediaResolved>()
      const byUrl = new Map<string, MediaResolved>()

      const cached = (map: Map<string, MediaResolved>, key: string, load: Effect.Effect<Option.Option<MediaResolved>, any>) =>
        Effect.gen(function* () {
          const now = yield* Clock.currentTimeMillis
          const hit = map.get(key)
          if (hit !== undefined && hit.expiresAt > now) return Option.some(hit)
          if (hit !== undefined) map.delete(key)
          const loaded = yield* load
          if (Option.isSome(loaded) && loaded.value.expiresAt > now) remember(map, key, loaded.value)
          return loaded
        })

      return MediaReadModel.of({
        get: (mediaId) => cached(byId, mediaId, inner.get(mediaId)),
        findByUrl: (url) => cached(byUrl, url, inner.findByUrl(url)),
        put: (media) =>
          inner.put(media).pipe(
            Effect.tap(() =>
              Effect.sync(() => {
                remember(byId, media.mediaId, media)
                remember(byUrl, media.url, media)
              })
            )
          )
      })
    })
  )
}
