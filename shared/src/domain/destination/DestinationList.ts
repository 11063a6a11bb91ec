// Extension: a project's destinations as the events of all its destinations' subjects tell them (each folded with the
// aggregate's own evolve): what lists show and what the per-project limit counts.
import type { Evolver } from "../Decider.ts"
import type { DestinationEvent } from "./DestinationEvent.ts"
import { type Destination, type DestinationState, evolveDestination, isLiveDestination } from "./DestinationState.ts"

/** By destination id, removed ones included (a late event of a removed one must not bring it back). */
export type DestinationList = ReadonlyMap<string, DestinationState>

export const evolveDestinationList = (list: DestinationList, event: DestinationEvent): DestinationList =>
  new Map(list).set(event.destinationId, evolveDestination(list.get(event.destinationId) ?? null, event))

export const DestinationListFold: Evolver<DestinationEvent, DestinationList> = {
  initialState: () => new Map(),
  evolve: evolveDestinationList
}

/** The live destinations in a list's order: oldest first. */
export const listedDestinations = (list: DestinationList): ReadonlyArray<Destination> =>
  [...list.values()]
    .filter(isLiveDestination)
    .sort((a, b) => a.createdAt - b.createdAt || (a.destinationId < b.destinationId ? -1 : a.destinationId > b.destinationId ? 1 : 0))
