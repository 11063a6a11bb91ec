// Extension: the destination aggregate's command handler, bound once (`destinationCommands(projectId, destinationId)(command)`),
// and its read doors: one destination's state, and a project's list.
import { Effect } from "effect"
import { commandHandler, forSubject, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { destinationSubject } from "../../nats/Subjects.ts"
import { DestinationDecider, DestinationNotFound } from "../../domain/destination/DestinationDecider.ts"
import { DestinationEvent } from "../../domain/destination/DestinationEvent.ts"
import { DestinationListFold, listedDestinations } from "../../domain/destination/DestinationList.ts"
import { isLiveDestination } from "../../domain/destination/DestinationState.ts"

/** Created and removed once each: the destination's id tells those events apart. */
const handleDestination = commandHandler({
  decider: DestinationDecider,
  codec: DestinationEvent,
  // A refresh happens again and again: its time tells one from the next.
  msgId: (event) =>
    event._tag === "DestinationLibraryRefreshed"
      ? `${event._tag}:${event.destinationId}:${event.at}`
      : `${event._tag}:${event.destinationId}`
})

export const destinationCommands = forSubject(handleDestination, destinationSubject)

/**
 * The destination's state (null before it was created) and its subject's last sequence. Its credentials stay sealed:
 * DestinationAccess opens them for a writer, and nothing else should.
 */
export const currentDestination = (projectId: string, destinationId: string) =>
  replayAggregate(DestinationDecider, DestinationEvent, destinationSubject(projectId, destinationId))

/** The project's live destination, or DestinationNotFound (unknown, removed, or another project's: the subject is the project's). */
export const liveDestination = Effect.fn("liveDestination")(function* (projectId: string, destinationId: string) {
  const { state } = yield* currentDestination(projectId, destinationId)
  if (!isLiveDestination(state) || state.projectId !== projectId) return yield* new DestinationNotFound({ destinationId })
  return state
})

/** The project's live destinations, oldest first: every destination subject of the project, folded (a few events each). */
export const projectDestinations = (projectId: string) =>
  Effect.map(replayAggregate(DestinationListFold, DestinationEvent, destinationSubject.within(projectId)), ({ state }) =>
    listedDestinations(state)
  )
