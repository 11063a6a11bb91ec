// Extension: the port a delivery writes through: a project's destination opened for writing (its writer, with the
// credentials inside it), answering each failure with the destination's code. The production layer opens the
// destination aggregate's writer; the lifecycle model and tests give an in-memory one.
import type { Readable } from "node:stream"
import { Context, Effect, Layer, Schema } from "effect"
import { type DestinationError, destinationErrorCode } from "../../destinations/DestinationWriter.ts"
import { DestinationWriters } from "../../destinations/DestinationWriters.ts"
import type { EventStore } from "../../eventstore/EventStore.ts"
import { DeliveryError } from "../../domain/job/JobDelivery.ts"
import { DestinationAccess } from "../destination/DestinationAccess.ts"
import { destinationWriter } from "../destination/DestinationWriterDoor.ts"

/** A delivery step the destination (or the stored file it copies) refused or did not answer; `error` says which. */
export class DeliveryFailure extends Schema.TaggedError<DeliveryFailure>()("DeliveryFailure", { error: DeliveryError }) {}

export interface DeliveryDestination {
  /** Whether an object is under `path` already: a delivery never writes over one. */
  exists(path: string): Effect.Effect<boolean, DeliveryFailure>
  /** Writes the whole object under `path` or nothing (a partial upload never shows under it). */
  put(
    path: string,
    body: { readonly stream: Readable; readonly sizeBytes: number },
    contentType: string
  ): Effect.Effect<void, DeliveryFailure>
  /** Removes the object under `path`; none there is no failure (a removal carried out again). */
  remove(path: string): Effect.Effect<void, DeliveryFailure>
}

export class DeliveryDestinations extends Context.Service<
  DeliveryDestinations,
  {
    /** The project's destination for writing; a removed or unknown one fails destination_missing. */
    open(projectId: string, destinationId: string): Effect.Effect<DeliveryDestination, DeliveryFailure>
  }
>()("mds/job/DeliveryDestinations") {
  /** The destination aggregate's writer (its one door to the credentials), each failure named by its code. */
  static readonly layer = Layer.effect(
    DeliveryDestinations,
    Effect.gen(function* () {
      const services = yield* Effect.context<EventStore | DestinationAccess | DestinationWriters>()
      const failed = (error: DestinationError) =>
        new DeliveryFailure({ error: { code: destinationErrorCode(error), message: error.message } })
      return DeliveryDestinations.of({
        open: (projectId, destinationId) =>
          destinationWriter(projectId, destinationId).pipe(
            Effect.provide(services),
            Effect.map(
              ({ writer }): DeliveryDestination => ({
                exists: (path) => Effect.mapError(writer.exists(path), failed),
                put: (path, body, contentType) =>
                  writer
                    .put(path, { stream: body.stream, sizeBytes: body.sizeBytes }, contentType)
                    .pipe(Effect.asVoid, Effect.mapError(failed)),
                remove: (path) => Effect.mapError(writer.remove(path), failed)
              })
            ),
            Effect.catchTag("DestinationNotFound", () =>
              Effect.fail(new DeliveryFailure({ error: { code: "destination_missing", message: "the destination was removed" } }))
            ),
            Effect.mapError((error) =>
              error._tag === "DeliveryFailure"
                ? error
                : new DeliveryFailure({ error: { code: "destination_failed", message: `the destination cannot be opened: ${error._tag}` } })
            )
          )
      })
    })
  )
}
