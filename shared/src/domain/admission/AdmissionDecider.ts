// The per-project concurrency invariant: at most `limit` jobs queued or processing at once.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { ConcurrencyLimitExceeded } from "../DomainErrors.ts"
import type { AdmissionEvent, HeldSlot, SlotReleaseReason } from "./AdmissionEvent.ts"

export interface AdmissionState {
  readonly held: ReadonlyArray<HeldSlot>
}

export type AdmissionCommand =
  | {
      readonly _tag: "ClaimSlot"
      readonly projectId: string
      readonly jobId: string
      readonly limit: number
      readonly now: number
      readonly expiresAt: number
    }
  | {
      readonly _tag: "ReleaseSlot"
      readonly projectId: string
      readonly jobId: string
      readonly reason: SlotReleaseReason
      readonly now: number
    }

export const initialAdmissionState = (): AdmissionState => ({ held: [] })

export const evolveAdmission = (_state: AdmissionState, event: AdmissionEvent): AdmissionState => ({ held: event.held })

/** Slots of jobs past their lifetime free themselves: an expired job no longer counts. */
export const liveSlots = (state: AdmissionState, now: number): ReadonlyArray<HeldSlot> => state.held.filter((slot) => slot.expiresAt > now)

export const decideAdmission = (
  command: AdmissionCommand,
  state: AdmissionState
): Result.Result<ReadonlyArray<AdmissionEvent>, ConcurrencyLimitExceeded> => {
  const live = liveSlots(state, command.now)
  switch (command._tag) {
    case "ClaimSlot": {
      if (live.some((slot) => slot.jobId === command.jobId)) return Result.succeed([])
      if (live.length >= command.limit) {
        return Result.fail(new ConcurrencyLimitExceeded({ projectId: command.projectId, limit: command.limit }))
      }
      return Result.succeed([
        {
          _tag: "SlotClaimed",
          v: 1,
          projectId: command.projectId,
          jobId: command.jobId,
          at: command.now,
          expiresAt: command.expiresAt,
          held: [...live, { jobId: command.jobId, expiresAt: command.expiresAt }]
        }
      ])
    }
    case "ReleaseSlot": {
      if (!live.some((slot) => slot.jobId === command.jobId)) return Result.succeed([])
      return Result.succeed([
        {
          _tag: "SlotReleased",
          v: 1,
          projectId: command.projectId,
          jobId: command.jobId,
          reason: command.reason,
          at: command.now,
          held: live.filter((slot) => slot.jobId !== command.jobId)
        }
      ])
    }
  }
}

export const AdmissionDecider: Decider<AdmissionCommand, AdmissionEvent, AdmissionState, ConcurrencyLimitExceeded> = {
  initialState: initialAdmissionState,
  evolve: evolveAdmission,
  decide: decideAdmission
}
