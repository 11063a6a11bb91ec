// Admits a job: claims one of the project's slots within its quotas (freeing slots of jobs that already finished when
// the project looks full), and answers what the job may still download this month. The one admit step of every path
// that queues a job: a download, a retry (a client's or the automatic one), a batch entry.
import { randomUUID } from "node:crypto"
import { Clock, Effect, Option } from "effect"
import { Lifetimes } from "../../config/Lifetimes.ts"
import { AdmissionDecider, liveSlots, slotOf, slotTry } from "../../domain/admission/AdmissionDecider.ts"
import type { HeldSlot, SlotReleaseReason } from "../../domain/admission/AdmissionEvent.ts"
import { bytesLeft } from "../../domain/admission/Quota.ts"
import { SlotLost } from "../../domain/DomainErrors.ts"
import { earlierTryRelease, slotReleaseBytes, slotReleaseOf } from "../../domain/job/JobSlot.ts"
import { retriesOf } from "../../domain/job/JobState.ts"
import { ProjectQuotaReader } from "../account/ProjectQuotaReader.ts"
import { JobStates } from "../job/JobStates.ts"
import { AdmissionStates } from "./AdmissionStates.ts"
import { claimSlot, confirmSlot, currentAdmission, releaseOrphanSlot, releaseSlot, type SlotOf } from "./AdmissionCommands.ts"

/**
 * A slot whose job never got its JobQueued (a process died between the two appends) is freed after this grace
 * period; a younger one may belong to a request still in flight elsewhere.
 */
const ORPHAN_GRACE_MS = 60_000

/** The admission states this process remembers, if it keeps any (the gateway does). */
const knownStates = Effect.map(Effect.serviceOption(AdmissionStates), Option.getOrNull)

/**
 * What an admission gives the job: what it may download this month (null: no byte quota), the claim its slot carries
 * (this admission's, or the claim that held the try's slot already), and whether this admission made the claim.
 */
export interface Admitted {
  readonly quotaBytesLeft: number | null
  readonly claim: string
  readonly claimed: boolean
  /** When the slot frees itself: the job's lifetime ends then. */
  readonly expiresAt: number
}

const claim = (projectId: string, jobId: string, retry: number, id: string, expiresAt: number | undefined) =>
  Effect.gen(function* () {
    const lifetimes = yield* Lifetimes
    const states = yield* knownStates
    const quota = yield* (yield* ProjectQuotaReader).limitsOf(projectId)
    const now = yield* Clock.currentTimeMillis
    const until = expiresAt ?? now + lifetimes.jobMs
    const claimed = yield* claimSlot(
      { projectId, jobId, retry, claim: id, limit: lifetimes.maxConcurrentJobs, quota, now, expiresAt: until },
      // Usually right, which saves the read; when another writer moved on, the append conflicts and reads. A
      // project not seen yet is assumed empty: a wrong guess costs one conflict, the same round trip as a read.
      states === null ? {} : { known: states.get(projectId) ?? { state: AdmissionDecider.initialState(), lastSeq: 0 } }
    ).pipe(Effect.tapError(() => Effect.sync(() => states?.forget(projectId))))
    states?.set(projectId, { state: claimed.state, lastSeq: claimed.lastSeq })
    // What the job may download before the month's bytes run out (null: no byte quota): its worker stops it there.
    const held = slotOf(claimed.state.held, jobId, retry)
    return {
      quotaBytesLeft: bytesLeft(quota, claimed.state.usage, now),
      claim: held?.claim ?? id,
      claimed: claimed.events.length > 0,
      expiresAt: until
    } satisfies Admitted
  })

/** Frees the slot of a job's try; the state this process remembers of the project stops being current. */
export const releaseAdmittedSlot = Effect.fn("releaseAdmittedSlot")(function* (
  projectId: string,
  jobId: string,
  reason: SlotReleaseReason,
  bytes = 0,
  of: SlotOf = {}
) {
  ;(yield* knownStates)?.forget(projectId)
  yield* releaseSlot(projectId, jobId, reason, bytes, of)
})

/**
 * The admission as the job's try was recorded: with the claim the job's state carries. Two admissions of one try
 * (two rounds of a batch's feeder, two live-wait rounds) may each claim in turn (the first claim freed as an orphan
 * meanwhile) while only one's record is stored (the same event id): each confirms the stored one's claim, so the slot
 * carries the claim the job does and its release counts the job's bytes.
 */
export const asRecorded = (admitted: Admitted, recorded: { readonly claim?: string | undefined } | null): Admitted =>
  recorded?.claim === undefined ? admitted : { ...admitted, claim: recorded.claim }

/**
 * Confirms, once the job's try is recorded (JobQueued, JobRetried), that its slot is no orphan (ConfirmSlot): a slot
 * still unrecorded after the orphan grace may be freed by an admission on a full project. One freed so is lost: the
 * confirmation fails (SlotLost) and the caller gives the try up; only a hand-off of a try that never ran claims it
 * again (`reclaim`), and fails as an admission does when it cannot have it.
 */
export const confirmAdmission = Effect.fn("confirmAdmission")(function* (
  projectId: string,
  jobId: string,
  retry: number,
  admitted: Pick<Admitted, "claim" | "expiresAt">,
  reclaim = false
) {
  const lifetimes = yield* Lifetimes
  const states = yield* knownStates
  const quota = yield* (yield* ProjectQuotaReader).limitsOf(projectId)
  const now = yield* Clock.currentTimeMillis
  const confirmed = yield* confirmSlot(
    {
      projectId,
      jobId,
      retry,
      claim: admitted.claim,
      reclaim,
      limit: lifetimes.maxConcurrentJobs,
      quota,
      now,
      expiresAt: admitted.expiresAt
    },
    // Decided from a fresh read: a remembered state may not show the slot yet, and "nothing to confirm" is not checked
    // against the subject the way a conflicting append is.
    {}
  )
  states?.forget(projectId)
  // A job past its lifetime needs no slot: it expires (a worker or the sweeper records it).
  if (slotOf(liveSlots(confirmed.state, now), jobId, retry) === undefined && now < admitted.expiresAt) {
    return yield* new SlotLost({ projectId, jobId })
  }
  return { quotaBytesLeft: bytesLeft(quota, confirmed.state.usage, now) }
})

/**
 * An admission whose job turned out to exist already (another process queued or retried it), or no longer to need one
 * (a scheduled job canceled while its stream's start was being admitted), gives its claim back, unless the job was
 * admitted with it: only a claim this admission made, and that the job's try does not carry, was made in vain (it is
 * released as unused, which also takes it back from the day's count). A try that carries no claim was not admitted
 * with this one: a slot it held would have been found, and nothing claimed.
 */
export const releaseIfInVain = Effect.fn("releaseIfInVain")(function* (
  projectId: string,
  jobId: string,
  retry: number,
  admitted: Admitted
) {
  if (!admitted.claimed) return
  const { state } = yield* (yield* JobStates).current(projectId, jobId)
  if (state !== null && retriesOf(state) === retry && state.claim === admitted.claim) return
  yield* releaseAdmittedSlot(projectId, jobId, "unused", 0, { retry })
})

/** Why a held slot no longer counts (and the bytes its release counts), or null while its try is waiting or running. */
const finishedReason = Effect.fn("finishedReason")(function* (projectId: string, slot: HeldSlot) {
  const lifetimes = yield* Lifetimes
  const now = yield* Clock.currentTimeMillis
  // Read now, not from the mirror: the job may have ended a moment ago, before the aggregator wrote its view.
  const view = Option.fromNullishOr((yield* (yield* JobStates).current(projectId, slot.jobId)).state)
  const claimedAt = slot.claimedAt ?? slot.expiresAt - lifetimes.jobMs
  const pastGrace = now - claimedAt > ORPHAN_GRACE_MS
  // No job (a process died between the claim and JobQueued), or a retry's claim whose JobRetried is not recorded: a
  // younger one may belong to an admission still under way elsewhere, and an older one is freed only if its try was
  // not recorded meanwhile (the orphan release, judged on the slots' subject).
  const orphan = { reason: "orphan" as const, bytes: 0 }
  if (Option.isNone(view)) return pastGrace ? orphan : null
  const job = view.value
  const current = retriesOf(job)
  if (slotTry(slot) > current) return pastGrace ? orphan : null
  // An earlier try's slot: that try ended (failed, or waiting for its stream) and its releaser died before freeing it.
  if (slotTry(slot) < current) return { reason: earlierTryRelease(job, slotTry(slot)), bytes: 0 }
  // A job canceled after its run started is not finished for its slot: its worker frees it once the run stopped.
  const reason = slotReleaseOf(job)
  if (reason === null) return now >= job.expiresAt ? { reason: "expired" as const, bytes: 0 } : null
  // The try's bytes count on the release of the claim it was admitted with only (ReleaseSlot judges it).
  return { reason, bytes: slotReleaseBytes(job), ...(job.claim === undefined ? {} : { claim: job.claim }) }
})

/**
 * Releases the slots of finished tries nobody has released yet (a releaser that died), and orphans past their grace;
 * returns how many it freed. What an admission does on a full project, and what the slot reconcile does on a timer.
 */
export const releaseFinished = Effect.fn("releaseFinished")(function* (projectId: string) {
  const now = yield* Clock.currentTimeMillis
  const { state } = yield* currentAdmission(projectId)
  let freed = 0
  for (const slot of liveSlots(state, now)) {
    const finished = yield* finishedReason(projectId, slot)
    if (finished === null) continue
    if (finished.reason === "orphan") {
      ;(yield* knownStates)?.forget(projectId)
      if ((yield* releaseOrphanSlot(projectId, slot.jobId, slotTry(slot))).events.length === 0) continue
    } else
      yield* releaseAdmittedSlot(projectId, slot.jobId, finished.reason, finished.bytes, { retry: slotTry(slot), claim: finished.claim })
    freed++
  }
  return freed
})

/**
 * Claims a slot for the job's try `retry` (0: its first) within the project's quotas, until `expiresAt` (the job's
 * lifetime's end; absent: a lifetime from now): what the job may still download this month and the claim it is
 * admitted with. A project that looks full first has the slots of its
 * finished tries freed (a releaser that died before freeing, a claim made in vain), then one more claim. Admissions
 * of one project run one at a time in a process that remembers states; a retry's reads the project afresh (a
 * remembered state may still show the try before it).
 */
export const admitJob = Effect.fn("admitJob")(function* (projectId: string, jobId: string, retry = 0, expiresAt?: number) {
  const states = yield* knownStates
  if (retry > 0) states?.forget(projectId)
  const id = randomUUID()
  const admit = claim(projectId, jobId, retry, id, expiresAt).pipe(
    Effect.catchTag("ConcurrencyLimitExceeded", (full) =>
      Effect.gen(function* () {
        const freed = yield* releaseFinished(projectId)
        if (freed === 0) return yield* full
        return yield* claim(projectId, jobId, retry, id, expiresAt)
      })
    )
  )
  return yield* states === null ? admit : states.oneAtATime(projectId, admit)
})
