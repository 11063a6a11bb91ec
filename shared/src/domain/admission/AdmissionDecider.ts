// The per-project admission invariants, judged together: at most `limit` jobs queued or processing, within the quotas.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { ConcurrencyLimitExceeded, QuotaExceeded } from "../DomainErrors.ts"
import type { AdmissionEvent, HeldSlot, SlotReleaseReason } from "./AdmissionEvent.ts"
import { exhaustedQuota, NO_USAGE, type QuotaLimits, type QuotaStanding, type QuotaUsage, UNLIMITED, usageAt } from "./Quota.ts"

export interface AdmissionState {
  readonly held: ReadonlyArray<HeldSlot>
  /** Jobs admitted today and bytes downloaded this month, as of the last event (see `usageAt` for now). */
  readonly usage: QuotaUsage
}

export type AdmissionCommand =
  | {
      readonly _tag: "ClaimSlot"
      readonly projectId: string
      readonly jobId: string
      readonly limit: number
      /** The project's quotas; absent: unlimited. */
      readonly quota?: QuotaLimits
      readonly now: number
      readonly expiresAt: number
    }
  | {
      readonly _tag: "ReleaseSlot"
      readonly projectId: string
      readonly jobId: string
      readonly reason: SlotReleaseReason
      /** The size of the file a completed job stored: counted toward this month's bytes. */
      readonly bytes?: number
      readonly now: number
    }

/** The refusal of a job over a used-up quota, with the seconds to its reset (Retry-After). */
export const quotaExceeded = (projectId: string, exhausted: QuotaStanding, now: number): QuotaExceeded =>
  new QuotaExceeded({
    projectId,
    quota: exhausted.quota,
    limit: exhausted.limit ?? 0,
    used: exhausted.used,
    resetAt: exhausted.resetAt,
    retryAfterSeconds: Math.max(1, Math.ceil((exhausted.resetAt - now) / 1000))
  })

export type AdmissionRejection = ConcurrencyLimitExceeded | QuotaExceeded

export const initialAdmissionState = (): AdmissionState => ({ held: [], usage: NO_USAGE })

export const evolveAdmission = (_state: AdmissionState, event: AdmissionEvent): AdmissionState => ({
  held: event.held,
  usage: event.usage ?? NO_USAGE
})

/** Slots of jobs past their lifetime free themselves: an expired job no longer counts. */
export const liveSlots = (state: Pick<AdmissionState, "held">, now: number): ReadonlyArray<HeldSlot> =>
  state.held.filter((slot) => slot.expiresAt > now)

const claim = (
  command: Extract<AdmissionCommand, { readonly _tag: "ClaimSlot" }>,
  state: AdmissionState
): Result.Result<ReadonlyArray<AdmissionEvent>, AdmissionRejection> => {
  const live = liveSlots(state, command.now)
  if (live.some((slot) => slot.jobId === command.jobId)) return Result.succeed([])
  const usage = usageAt(state.usage, command.now)
  // A used-up quota is named before a full project: it is the answer that will not change when a job ends.
  const exhausted = exhaustedQuota(command.quota ?? UNLIMITED, usage, command.now)
  if (exhausted !== null) return Result.fail(quotaExceeded(command.projectId, exhausted, command.now))
  if (live.length >= command.limit) {
    return Result.fail(new ConcurrencyLimitExceeded({ projectId: command.projectId, limit: command.limit }))
  }
  return Result.succeed([
    {
      _tag: "SlotClaimed",
      v: 2,
      projectId: command.projectId,
      jobId: command.jobId,
      at: command.now,
      expiresAt: command.expiresAt,
      held: [...live, { jobId: command.jobId, expiresAt: command.expiresAt }],
      usage: { ...usage, jobs: usage.jobs + 1 }
    }
  ])
}

const release = (
  command: Extract<AdmissionCommand, { readonly _tag: "ReleaseSlot" }>,
  state: AdmissionState
): Result.Result<ReadonlyArray<AdmissionEvent>, AdmissionRejection> => {
  const live = liveSlots(state, command.now)
  if (!live.some((slot) => slot.jobId === command.jobId)) return Result.succeed([])
  const usage = usageAt(state.usage, command.now)
  const bytes = command.reason === "completed" ? Math.max(0, command.bytes ?? 0) : 0
  return Result.succeed([
    {
      _tag: "SlotReleased",
      v: 2,
      projectId: command.projectId,
      jobId: command.jobId,
      reason: command.reason,
      at: command.now,
      held: live.filter((slot) => slot.jobId !== command.jobId),
      ...(bytes > 0 ? { bytes } : {}),
      usage: { ...usage, bytes: usage.bytes + bytes }
    }
  ])
}

export const decideAdmission = (
  command: AdmissionCommand,
  state: AdmissionState
): Result.Result<ReadonlyArray<AdmissionEvent>, AdmissionRejection> => {
  switch (command._tag) {
    case "ClaimSlot":
      return claim(command, state)
    case "ReleaseSlot":
      return release(command, state)
  }
}

export const AdmissionDecider: Decider<AdmissionCommand, AdmissionEvent, AdmissionState, AdmissionRejection> = {
  initialState: initialAdmissionState,
  evolve: evolveAdmission,
  decide: decideAdmission
}
