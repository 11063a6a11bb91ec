// The admission aggregate's command handler, bound once: claiming and releasing a project's job slots.
import { Clock, Effect } from "effect"
import { type CommandCallOptions, commandHandler, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { admissionSubject } from "../../nats/Subjects.ts"
import { type AdmissionCommand, AdmissionDecider, type AdmissionState } from "../../domain/admission/AdmissionDecider.ts"
import { AdmissionEvent, type SlotReleaseReason } from "../../domain/admission/AdmissionEvent.ts"
import type { QuotaLimits } from "../../domain/admission/Quota.ts"

/**
 * A job claims a slot once per try and releases it once per try, whoever releases it (the worker, the gateway or the
 * sweeper); the decider turns a claim of a held slot or a release of a free one into nothing. A slot freed can be
 * claimed again within the duplicate window (a claim made in vain, then released), so the id carries the try, the
 * claim or the release's reason, and the command's time: the same command repeated appends once.
 */
const handleAdmission = commandHandler({
  decider: AdmissionDecider,
  codec: AdmissionEvent,
  // Each event carries every held slot: the last one is the state.
  hydrate: "last",
  msgId: (event) => {
    const what = event._tag === "SlotReleased" ? event.reason : event._tag === "SlotClaimed" ? (event.claim ?? "") : ""
    return `${event._tag}:${event.jobId}:${event.retry ?? 0}:${what}:${event.at}`
  }
})

export const claimSlot = (
  command: {
    readonly projectId: string
    readonly jobId: string
    /** The try claimed for (absent: the job's first). */
    readonly retry?: number
    /** This claim's id: what the job admitted with it records. */
    readonly claim?: string
    readonly limit: number
    readonly quota?: QuotaLimits
    readonly now: number
    readonly expiresAt: number
  },
  options?: CommandCallOptions<AdmissionState>
) => handleAdmission(admissionSubject(command.projectId), { _tag: "ClaimSlot", ...command }, options)

/** Which slot a release frees: the job's try (absent: its first) and the claim it was admitted with (for its bytes). */
export interface SlotOf {
  readonly retry?: number
  readonly claim?: string | undefined
}

/**
 * Frees the slot of the job's try `retry` (0: its first; a no-op when it holds none). A completed job's releaser passes
 * the size of its file (`slotReleaseBytes`): the month's bytes are counted on the same subject as the slots, so the
 * quota and the slots are judged together.
 */
export const releaseSlot = Effect.fn("releaseSlot")(function* (
  projectId: string,
  jobId: string,
  reason: SlotReleaseReason,
  bytes: number = 0,
  of: SlotOf = {}
) {
  const now = yield* Clock.currentTimeMillis
  const retry = of.retry ?? 0
  return yield* handleAdmission(admissionSubject(projectId), {
    _tag: "ReleaseSlot",
    projectId,
    jobId,
    ...(retry === 0 ? {} : { retry }),
    ...(of.claim === undefined ? {} : { claim: of.claim }),
    reason,
    now,
    ...(bytes > 0 ? { bytes } : {})
  })
})

/** Confirms the admission of a job's try once it is recorded (see ConfirmSlot): its slot is no orphan any more. */
export const confirmSlot = (
  command: Omit<Extract<AdmissionCommand, { readonly _tag: "ConfirmSlot" }>, "_tag">,
  options?: CommandCallOptions<AdmissionState>
) => handleAdmission(admissionSubject(command.projectId), { _tag: "ConfirmSlot", ...command }, options)

/**
 * Frees the slot of a job's try only if it is an orphan: claimed, and its job's try never recorded since (its claimer
 * died between the two writes). A slot whose try was recorded meanwhile stays held: the decider judges it on the
 * slots' own subject, so the release cannot race the record's confirmation.
 */
export const releaseOrphanSlot = Effect.fn("releaseOrphanSlot")(function* (projectId: string, jobId: string, retry: number) {
  const now = yield* Clock.currentTimeMillis
  return yield* handleAdmission(admissionSubject(projectId), {
    _tag: "ReleaseSlot",
    projectId,
    jobId,
    ...(retry === 0 ? {} : { retry }),
    reason: "unused",
    onlyUnrecorded: true,
    now
  })
})

/** The project's admission state (its held slots and quota usage) and its subject's last sequence: the last event alone. */
export const currentAdmission = (projectId: string) =>
  replayAggregate(AdmissionDecider, AdmissionEvent, admissionSubject(projectId), { last: true })
