// Extension: a destination as its events tell it (null before it was created), and the one evolve every reader folds with.
import type { DestinationEvent, DestinationLibraryRefreshed, DestinationTarget, LibraryRefreshTarget } from "./DestinationEvent.ts"

/** The last call to the destination's media server. */
export interface LastLibraryRefresh {
  readonly at: number
  readonly ok: boolean
  readonly error: DestinationLibraryRefreshed["error"]
}

export interface Destination {
  readonly projectId: string
  readonly destinationId: string
  readonly name: string
  /** Credentials inside stay sealed: only DestinationAccess opens them, for a writer. */
  readonly target: DestinationTarget
  /** Who made it: a member of the project (s3) or the operator (folder). */
  readonly createdBy: "project" | "operator"
  readonly createdAt: number
  /** The media server told after deliveries, if any (its token sealed). */
  readonly refresh?: LibraryRefreshTarget
  readonly lastRefresh?: LastLibraryRefresh
  /** Kept so a late repeat of its creation does not bring it back. */
  readonly removed: boolean
}

export type DestinationState = Destination | null

export const initialDestinationState = (): DestinationState => null

export const evolveDestination = (state: DestinationState, event: DestinationEvent): DestinationState => {
  switch (event._tag) {
    case "DestinationCreated":
    case "FolderDestinationAssigned":
      if (state !== null) return state
      return {
        projectId: event.projectId,
        destinationId: event.destinationId,
        name: event.name,
        target: event.target,
        createdBy: event._tag === "DestinationCreated" ? "project" : "operator",
        createdAt: event.at,
        removed: false,
        ...(event.refresh === undefined ? {} : { refresh: event.refresh })
      }
    case "DestinationRemoved":
      return state === null ? null : { ...state, removed: true }
    case "DestinationLibraryRefreshed":
      return state === null ? null : { ...state, lastRefresh: { at: event.at, ok: event.ok, error: event.error } }
  }
}

/** A destination the project can see, use and test: created and not removed. */
export const isLiveDestination = (state: DestinationState): state is Destination => state !== null && !state.removed
