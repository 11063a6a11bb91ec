// Extension: the download archive's decider: an entry is recorded by one claim, and a retry of that claim stays its owner.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import type { ArchiveEvent } from "./ArchiveEvent.ts"

export interface RecordArchiveEntry {
  readonly _tag: "RecordArchiveEntry"
  readonly projectId: string
  readonly archiveKey: string
  readonly subscriptionId: string
  readonly claimId: string
  readonly now: number
}

/** The claim that recorded the entry, or null while no claim has. */
export type ArchiveState = { readonly claimId: string } | null

/**
 * Whether a claim owns the entry after deciding: the recording claim does (the first time and on every retry), any
 * other does not, and queues nothing for it.
 */
export const ownsEntry = (state: ArchiveState, claimId: string): boolean => state !== null && state.claimId === claimId

export const ArchiveDecider: Decider<RecordArchiveEntry, ArchiveEvent, ArchiveState, never> = {
  initialState: () => null,
  evolve: (state, event) => state ?? { claimId: event.claimId },
  decide: (command, state) =>
    Result.succeed(
      state !== null
        ? []
        : [
            {
              _tag: "ArchiveEntryRecorded",
              v: 1,
              projectId: command.projectId,
              archiveKey: command.archiveKey,
              subscriptionId: command.subscriptionId,
              claimId: command.claimId,
              at: command.now
            }
          ]
    )
}
