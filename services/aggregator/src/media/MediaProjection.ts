// Stores each resolved media in the media read model (the media never changes after MediaResolved).
import { Context, Effect, Layer, Schema } from "effect"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { MEDIA_STREAM } from "@mds/shared/eventstore/Subjects"
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
          switch (event._tag) {
            case "MediaResolved":
              return yield* readModel.put(event)
          }
        })
      })
    })
  )
}

/** mds.media.> into the media read model. */
export const mediaProjection = projection({
  stream: MEDIA_STREAM.name,
  durable: "aggregator-media",
  filter: MEDIA_STREAM.subjects[0]!,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(MediaEvent)),
  project: (event: MediaEvent) => Effect.flatMap(MediaProjection, (media) => media.apply(event))
})
