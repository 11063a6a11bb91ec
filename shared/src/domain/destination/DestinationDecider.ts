// Extension: the destination aggregate's commands and the pure decide that turns them into events.
import { Result, Schema } from "effect"
import { type Decider, type Decision, emit, none } from "../Decider.ts"
import type { DestinationEvent, DestinationLibraryRefreshed, FolderTarget, LibraryRefreshTarget, S3Target } from "./DestinationEvent.ts"
import { type DestinationState, evolveDestination, initialDestinationState } from "./DestinationState.ts"

/** Unknown, of another project, or removed: all look the same to the asking project. */
export class DestinationNotFound extends Schema.TaggedError<DestinationNotFound>()("DestinationNotFound", {
  destinationId: Schema.String
}) {}

export type DestinationCommand =
  | {
      readonly _tag: "CreateDestination"
      readonly projectId: string
      readonly destinationId: string
      readonly name: string
      readonly target: S3Target
      readonly refresh?: LibraryRefreshTarget
      readonly now: number
    }
  | {
      readonly _tag: "AssignFolderDestination"
      readonly projectId: string
      readonly destinationId: string
      readonly name: string
      readonly target: FolderTarget
      readonly refresh?: LibraryRefreshTarget
      readonly now: number
    }
  | { readonly _tag: "RemoveDestination"; readonly projectId: string; readonly destinationId: string; readonly now: number }
  | {
      readonly _tag: "RecordLibraryRefresh"
      readonly projectId: string
      readonly destinationId: string
      readonly ok: boolean
      readonly error?: DestinationLibraryRefreshed["error"]
      readonly now: number
    }

export const decideDestination = (
  command: DestinationCommand,
  state: DestinationState
): Decision<DestinationEvent, DestinationNotFound> => {
  switch (command._tag) {
    case "CreateDestination":
      // The id is fresh per request: a destination already there is this command's own earlier append (a retry).
      if (state !== null) return none
      return emit({
        _tag: "DestinationCreated",
        v: 1,
        projectId: command.projectId,
        destinationId: command.destinationId,
        name: command.name,
        target: command.target,
        ...(command.refresh === undefined ? {} : { refresh: command.refresh }),
        at: command.now
      })
    case "AssignFolderDestination":
      if (state !== null) return none
      return emit({
        _tag: "FolderDestinationAssigned",
        v: 1,
        projectId: command.projectId,
        destinationId: command.destinationId,
        name: command.name,
        target: command.target,
        ...(command.refresh === undefined ? {} : { refresh: command.refresh }),
        at: command.now
      })
    case "RemoveDestination":
      if (state === null || state.removed || state.projectId !== command.projectId) {
        return Result.fail(new DestinationNotFound({ destinationId: command.destinationId }))
      }
      return emit({ _tag: "DestinationRemoved", v: 1, projectId: command.projectId, destinationId: command.destinationId, at: command.now })
    case "RecordLibraryRefresh":
      // A removed destination's late refresh is not recorded: nothing shows it any more.
      if (state === null || state.removed || state.projectId !== command.projectId) {
        return Result.fail(new DestinationNotFound({ destinationId: command.destinationId }))
      }
      return emit({
        _tag: "DestinationLibraryRefreshed",
        v: 1,
        projectId: command.projectId,
        destinationId: command.destinationId,
        ok: command.ok,
        ...(command.error === undefined ? {} : { error: command.error }),
        at: command.now
      })
    default: {
      const unknown: never = command
      return unknown
    }
  }
}

export const DestinationDecider: Decider<DestinationCommand, DestinationEvent, DestinationState, DestinationNotFound> = {
  initialState: initialDestinationState,
  evolve: evolveDestination,
  decide: decideDestination
}
