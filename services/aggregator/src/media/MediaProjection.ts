// Stores each resolved media in the media read model (the media never changes after MediaResolved).
import { Context, Effect, Layer, Schema } from "effect"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { evolveMedia } from "@mds/shared/domain/media/MediaState"
import { MEDIA_STREAM, mediaSubject } from "@mds/shared/nats/Subjects"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { projection } from "../projections/Projection.ts"

export class MediaProjection extends Context.Service<
  MediaProjection,
  {
    apply(event: MediaEvent): Effect.Effect<void, unknown>
  }
>()("mds/aggregator/MediaProjection") {
  static readonly layer = Layer.effect(
    MediaProjection,
    Effect.gen(function* () {
      const readModel = yield* MediaReadModel
      return MediaProjection.of({
        apply: Effect.fn("MediaProjection.apply")(function* (event: MediaEvent) {
          const media = evolveMedia(null, event)
          if (media !== null) yield* readModel.put(media)
        })
      })
    })
  )
}

/** mds.media.> into the media read model. */
export const mediaProjection = projection({
  stream: MEDIA_STREAM.name,
  durable: "aggregator-media",
  filter: mediaSubject.all,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(MediaEvent)),
  project: (event: MediaEvent) => Effect.flatMap(MediaProjection, (media) => media.apply(event))
})
