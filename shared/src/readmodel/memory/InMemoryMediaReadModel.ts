// MediaReadModel kept in process memory: for tests and single-process tools; passes the same contract suite as KV.
import { Effect, Layer, Option, Ref } from "effect"
import type { MediaResolved } from "../../domain/media/MediaEvent.ts"
import { MediaReadModel } from "../MediaReadModel.ts"

interface Store {
  readonly byId: ReadonlyMap<string, MediaResolved>
  readonly idByUrl: ReadonlyMap<string, string>
}

export const InMemoryMediaReadModel = {
  layer: Layer.effect(
    MediaReadModel,
    Effect.gen(function* () {
      const store = yield* Ref.make<Store>({ byId: new Map(), idByUrl: new Map() })
      return MediaReadModel.of({
        get: (mediaId) => Ref.get(store).pipe(Effect.map((s) => Option.fromNullishOr(s.byId.get(mediaId)))),
        findByUrl: (url) =>
          Ref.get(store).pipe(
            Effect.map((s) => {
              const mediaId = s.idByUrl.get(url)
              return Option.fromNullishOr(mediaId === undefined ? undefined : s.byId.get(mediaId))
            })
          ),
        put: (media) =>
          Ref.update(store, (s) => ({
            byId: new Map(s.byId).set(media.mediaId, media),
            idByUrl: new Map(s.idByUrl).set(media.url, media.mediaId)
          }))
      })
    })
  )
}
