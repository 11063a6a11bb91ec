// Stores each resolved media in the media read model (the media never changes after MediaResolved).
import { Context, Effect, Layer } from "effect"
import type { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"

export class MediaProjection extends Context.Service<MediaProjection, {
  apply(event: MediaEvent): Effect.Effect<void, unknown>
}>()("mds/aggregator/MediaProjection") {
  static readonly layer = Layer.effect(
    MediaProjection,
    Effect.gen(function*() {
      const readModel = yield* MediaReadModel
      return MediaProjection.of({
        apply: Effect.fn("MediaProjection.apply")(function*(event: MediaEvent) {
          switch (event._tag) {
            case "MediaResolved":
              return yield* readModel.put(event)
          }
        })
      })
    })
  )
}
