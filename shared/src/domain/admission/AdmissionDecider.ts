// The per-project admission invariants, judged together: at most `limit` jobs queued or processing, within the quotas.
import { Result } from "effect"
import type { Decider } from "../Decider.ts"
import { ConcurrencyLimitExceeded, QuotaExceeded } from "../DomainErrors.ts"
import type { AdmissionEvent, HeldSlot, SlotReleaseReason } from "./AdmissionEvent.ts"
import { exhaustedQuota, NO_USAGE, type QuotaLimits, type QuotaStanding, type QuotaUsage, UNLIMITED, usageAt, utcDay } from "./Quota.ts"

export interface AdmissionState {
  readonly held: ReadonlyArray<HeldSlot>
  /** Jobs admitted today and bytes downloaded this month, as of the last event (see `usageAt` for now). */
  readonly usage: QuotaUsage
}

export type AdmissionCommand =
  | ConfirmSlot
  | {
      readonly _tag: "ClaimSlot"
      readonly projectId: string
      readonly jobId: string
      /** The try claimed for (absent: the job's first); each try of a job holds a slot of its own. */
      readonly retry?: number
      /** This claim's id, recorded with the slot (and by the job admitted with it). */
      readonly claim?: string
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
      /** The try whose slot is freed (absent: the job's first). */
      readonly retry?: number
      readonly reason: SlotReleaseReason
      /** Only an orphan: a slot whose job's try was not recorded (confirmed) since its claim; any other stays held. */
      readonly onlyUnrecorded?: boolean
      /**
       * The claim the job's try was admitted with, as the releaser read it: a completed job's bytes count only on the
       * release of that claim's slot (a slot claimed in vain for an ended job counts none).
       */
      readonly claim?: string
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

/**
 * The job's try was recorded: its slot (claimed with `claim`) is no orphan any more. A slot freed meanwhile (an orphan
 * release raced the record) is claimed again, as ClaimSlot would, recorded at once, only when `reclaim` says so (a
 * hand-off of a queued try that never ran); otherwise the confirmation appends nothing and the slot stays free.
 */
export interface ConfirmSlot {
  readonly _tag: "ConfirmSlot"
  readonly projectId: string
  readonly jobId: string
  readonly retry?: number
  readonly claim: string
  readonly reclaim: boolean
  readonly limit: number
  readonly quota?: QuotaLimits
  readonly now: number
  readonly expiresAt: number
}

export const initialAdmissionState = (): AdmissionState => ({ held: [], usage: NO_USAGE })

export const evolveAdmission = (_state: AdmissionState, event: AdmissionEvent): AdmissionState => ({
  held: event.held,
  usage: event.usage ?? NO_USAGE
})

/** Slots of jobs past their lifetime free themselves: an expired job no longer counts. */
export const liveSlots = (state: Pick<AdmissionState, "held">, now: number): ReadonlyArray<HeldSlot> =>
  state.held.filter((slot) => slot.expiresAt > now)

/**
 * How long a slot stays listed after its job's lifetime ended, without counting: a completion recorded just before the
 * end whose release comes after it still finds its slot, and counts its file's bytes toward the month.
 */
export const EXPIRED_SLOT_KEPT_MS = 86_400_000

/** The slots listed: the live ones and those expired within the day (released or dropped after it). */
const keptSlots = (state: Pick<AdmissionState, "held">, now: number): ReadonlyArray<HeldSlot> =>
  state.held.filter((slot) => slot.expiresAt + EXPIRED_SLOT_KEPT_MS > now)

/** The try a slot is for. */
export const slotTry = (slot: HeldSlot): number => slot.retry ?? 0

/** The slot held for a job's try, if any. */
export const slotOf = (held: ReadonlyArray<HeldSlot>, jobId: string, retry = 0): HeldSlot | undefined =>
  held.find((slot) => slot.jobId === jobId && slotTry(slot) === retry)

/** A try's field as events and slots carry it: absent for the first. */
const tryField = (retry: number | undefined) => (retry === undefined || retry === 0 ? {} : { retry })

const claim = (
  command: Extract<AdmissionCommand, { readonly _tag: "ClaimSlot" }>,
  state: AdmissionState,
  recorded = false
): Result.Result<ReadonlyArray<AdmissionEvent>, AdmissionRejection> => {
  const live = liveSlots(state, command.now)
  if (slotOf(live, command.jobId, command.retry) !== undefined) return Result.succeed([])
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
      ...tryField(command.retry),
      ...(command.claim === undefined ? {} : { claim: command.claim }),
      at: command.now,
      expiresAt: command.expiresAt,
      held: [
        ...keptSlots(state, command.now),
        {
          jobId: command.jobId,
          expiresAt: command.expiresAt,
          ...tryField(command.retry),
          ...(command.claim === undefined ? {} : { claim: command.claim, claimedAt: command.now, ...(recorded ? {} : { recorded: false }) })
        }
      ],
      usage: { ...usage, jobs: usage.jobs + 1 }
    }
  ])
}

const release = (
  command: Extract<AdmissionCommand, { readonly _tag: "ReleaseSlot" }>,
  state: AdmissionState
): Result.Result<ReadonlyArray<AdmissionEvent>, AdmissionRejection> => {
  const kept = keptSlots(state, command.now)
  const slot = slotOf(kept, command.jobId, command.retry)
  if (slot === undefined || (command.onlyUnrecorded === true && slot.recorded !== false)) return Result.succeed([])
  const usage = usageAt(state.usage, command.now)
  const ownSlot = command.claim === undefined || slot.claim === undefined || slot.claim === command.claim
  const bytes = command.reason === "completed" && ownSlot ? Math.max(0, command.bytes ?? 0) : 0
  // A claim made in vain is taken back from the day it counted toward (a claim of an earlier day counts no more).
  const refunded = command.reason === "unused" && slot.claimedAt !== undefined && utcDay(slot.claimedAt) === usage.day ? 1 : 0
  return Result.succeed([
    {
      _tag: "SlotReleased",
      v: 2,
      projectId: command.projectId,
      jobId: command.jobId,
      ...tryField(command.retry),
      reason: command.reason,
      at: command.now,
      held: kept.filter((other) => other !== slot),
      ...(bytes > 0 ? { bytes } : {}),
      usage: { ...usage, jobs: Math.max(0, usage.jobs - refunded), bytes: usage.bytes + bytes }
    }
  ])
}

const confirm = (command: ConfirmSlot, state: AdmissionState): Result.Result<ReadonlyArray<AdmissionEvent>, AdmissionRejection> => {
  const live = liveSlots(state, command.now)
  const slot = slotOf(live, command.jobId, command.retry)
  if (slot === undefined) return command.reclaim ? claim({ ...command, _tag: "ClaimSlot" }, state, true) : Result.succeed([])
  // The slot is the try's, whoever claimed it (a claim of the same try racing this one's freed slot): it takes the
  // claim the try was recorded with.
  if (slot.recorded !== false && slot.claim === command.claim) return Result.succeed([])
  const { recorded: _unrecorded, ...rest } = slot
  const confirmed: HeldSlot = { ...rest, claim: command.claim }
  return Result.succeed([
    {
      _tag: "SlotConfirmed",
      v: 2,
      projectId: command.projectId,
      jobId: command.jobId,
      ...tryField(command.retry),
      at: command.now,
      held: keptSlots(state, command.now).map((other) => (other === slot ? confirmed : other)),
      usage: usageAt(state.usage, command.now)
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
    case "ConfirmSlot":
      return confirm(command, state)
  }
}

export const AdmissionDecider: Decider<AdmissionCommand, AdmissionEvent, AdmissionState, AdmissionRejection> = {
  initialState: initialAdmissionState,
  evolve: evolveAdmission,
  decide: decideAdmission
}
