// The lifecycle model's destination and store for deliveries: a destination that answers as the model says (delivers,
// is unreachable, refuses), counting every object written under each path; and a store that hands back any stored key.
import { Readable } from "node:stream"
import { Effect, Layer } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { DeliveryDestinations, DeliveryFailure } from "@mds/shared/application/job/DeliveryDestinations"

export type DestinationMode = "ok" | "unreachable" | "denied"

export class ModelDestination {
  /** How the destination answers the next attempts. */
  mode: DestinationMode = "ok"
  /** Objects written, by `projectId/destinationId/path`: how many times each was written. */
  readonly writes = new Map<string, number>()
  /** Objects removed (retention), by the same key: how many times each removal was carried out. */
  readonly removals = new Map<string, number>()

  private failure(): DeliveryFailure | null {
    if (this.mode === "unreachable")
      return new DeliveryFailure({ error: { code: "destination_unreachable", message: "model: connection refused" } })
    if (this.mode === "denied") return new DeliveryFailure({ error: { code: "destination_denied", message: "model: AccessDenied" } })
    return null
  }

  readonly layer = Layer.mergeAll(
    Layer.succeed(
      DeliveryDestinations,
      DeliveryDestinations.of({
        open: (projectId, destinationId) =>
          Effect.succeed({
            exists: (path: string) => {
              const failure = this.failure()
              return failure === null ? Effect.succeed(this.writes.has(`${projectId}/${destinationId}/${path}`)) : Effect.fail(failure)
            },
            put: (path: string) => {
              const failure = this.failure()
              if (failure !== null) return Effect.fail(failure)
              const key = `${projectId}/${destinationId}/${path}`
              this.writes.set(key, (this.writes.get(key) ?? 0) + 1)
              return Effect.void
            },
            remove: (path: string) => {
              const failure = this.failure()
              if (failure !== null) return Effect.fail(failure)
              const key = `${projectId}/${destinationId}/${path}`
              this.removals.set(key, (this.removals.get(key) ?? 0) + 1)
              return Effect.void
            }
          })
      })
    ),
    Layer.succeed(
      ArtifactStore,
      ArtifactStore.of({
        putFile: (key) => Effect.succeed({ key, sizeBytes: 0 }),
        open: () => Effect.succeed({ body: Readable.from([]), sizeBytes: 0, contentType: "application/octet-stream" }),
        presign: (key) => Effect.succeed(`https://store.example/${key}`),
        remove: () => Effect.void
      })
    )
  )
}
