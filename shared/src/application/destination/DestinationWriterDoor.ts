// Extension: how anything that writes to a project's destination (a test of it, a delivery) gets its writer: the live
// destination of that project (DestinationNotFound otherwise), its credentials opened by DestinationAccess, and the
// writer of its kind. The credentials go from here into the writer and nowhere else.
import { Effect } from "effect"
import type { Destination } from "../../domain/destination/DestinationState.ts"
import { DestinationWriters } from "../../destinations/DestinationWriters.ts"
import { DestinationAccess } from "./DestinationAccess.ts"
import { liveDestination } from "./DestinationCommands.ts"

/** The writer of a destination already read (its credentials opened on the way). */
export const writerOf = Effect.fn("writerOf")(function* (destination: Destination) {
  const target = yield* (yield* DestinationAccess).open(destination)
  return yield* (yield* DestinationWriters).writerFor(target)
})

/** The project's live destination and its writer. */
export const destinationWriter = Effect.fn("destinationWriter")(function* (projectId: string, destinationId: string) {
  const destination = yield* liveDestination(projectId, destinationId)
  return { destination, writer: yield* writerOf(destination) }
})
