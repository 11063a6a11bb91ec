// Extension: how many destinations a project may have, so no project fills the store with them; read once at start, so
// a bad value stops the service there rather than failing requests.
import { Config, Context, Effect, Layer, Schema } from "effect"

/** DESTINATIONS_PER_PROJECT: live destinations (S3 and folders) a project may have; 20 by default. */
export const destinationsPerProject = Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), "DESTINATIONS_PER_PROJECT").pipe(
  Config.withDefault(20)
)

export class DestinationLimit extends Context.Service<DestinationLimit, { readonly perProject: number }>()(
  "mds/destinations/DestinationLimit"
) {
  static readonly layer = Layer.effect(
    DestinationLimit,
    Effect.gen(function* () {
      return DestinationLimit.of({ perProject: yield* destinationsPerProject })
    })
  )
}
