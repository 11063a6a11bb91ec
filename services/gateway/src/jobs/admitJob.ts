// Claims one of the project's job slots; when full, frees slots of jobs that already finished and tries once more.
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { claimSlot, releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { AdmissionDecider, liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent, type SlotReleaseReason } from "@mds/shared/domain/admission/AdmissionEvent"
import { bytesLeft } from "@mds/shared/domain/admission/Quota"
import { slotReleaseBytes, slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { admissionSubject } from "@mds/shared/eventstore/Subjects"
import { JobStates } from "@mds/shared/jobs/JobStates"
import { Clock, Effect, Option } from "effect"
import { AdmissionStates } from "./AdmissionStates.ts"

/**
 * A slot whose job never got its JobQueued (the gateway died between the two appends) is freed after this
 * grace period; a younger one may belong to a request still in flight on another gateway.
 */
const ORPHAN_GRACE_MS = 60_000

const claim = (projectId: string, jobId: string) =>
  Effect.gen(function* () {
    const lifetimes = yield* Lifetimes
    const states = yield* AdmissionStates
    const quota = yield* (yield* ProjectQuotaReader).limitsOf(projectId)
    const now = yield* Clock.currentTimeMillis
    const claimed = yield* claimSlot(
      { projectId, jobId, limit: lifetimes.maxConcurrentJobs, quota, now, expiresAt: now + lifetimes.jobMs },
      // Usually right, which saves the read; when another writer moved on, the append conflicts and reads. A
      // project not seen yet is assumed empty: a wrong guess costs one conflict, the same round trip as a read.
      { known: states.get(projectId) ?? { state: AdmissionDecider.initialState(), lastSeq: 0 } }
    ).pipe(Effect.tapError(() => Effect.sync(() => states.forget(projectId))))
    states.set(projectId, { state: claimed.state, lastSeq: claimed.lastSeq })
    // What the job may download before the month's bytes run out (null: no byte quota): its worker stops it there.
    return { quotaBytesLeft: bytesLeft(quota, claimed.state.usage, now) }
  })

/** Releases a slot this gateway may hold in its admission cache: the cached state stops being current. */
export const releaseAdmittedSlot = Effect.fn("releaseAdmittedSlot")(function* (
  projectId: string,
  jobId: string,
  reason: SlotReleaseReason,
  bytes = 0
) {
  ;(yield* AdmissionStates).forget(projectId)
  yield* releaseSlot(projectId, jobId, reason, bytes)
})

/** Why a held slot no longer counts (and the bytes its release counts), or null when its job is still queued or processing. */
const finishedReason = Effect.fn("finishedReason")(function* (projectId: string, jobId: string, expiresAt: number) {
  const lifetimes = yield* Lifetimes
  const now = yield* Clock.currentTimeMillis
  // Read now, not from the mirror: the job may have ended a moment ago, before the aggregator wrote its view.
  const view = Option.fromNullishOr((yield* (yield* JobStates).current(projectId, jobId)).state)
  if (Option.isNone(view)) {
    const claimedAt = expiresAt - lifetimes.jobMs
    return now - claimedAt > ORPHAN_GRACE_MS ? { reason: "failed" as const, bytes: 0 } : null
  }
  // A job canceled after its run started is not finished for its slot: its worker frees it once the run stopped.
  const reason = slotReleaseOf(view.value)
  // A slot claimed after its job failed is a retry's (POST /retry, the automatic retries) that has not recorded
  // JobRetried yet: like an orphan, it is given the grace period before it counts as finished.
  const claimedAt = expiresAt - lifetimes.jobMs
  const retryInFlight = reason === "failed" && claimedAt >= (view.value.completedAt ?? now) && now - claimedAt <= ORPHAN_GRACE_MS
  if (reason !== null) return retryInFlight ? null : { reason, bytes: slotReleaseBytes(view.value) }
  return now >= view.value.expiresAt ? { reason: "expired" as const, bytes: 0 } : null
})

/** Releases the slots of finished jobs the aggregator has not released yet; returns how many it freed. */
const releaseFinished = Effect.fn("releaseFinished")(function* (projectId: string) {
  const store = yield* EventStore
  const now = yield* Clock.currentTimeMillis
  const last = yield* store.readLast(AdmissionEvent, admissionSubject(projectId))
  if (Option.isNone(last)) return 0
  let freed = 0
  for (const slot of liveSlots({ held: last.value.event.held }, now)) {
    const finished = yield* finishedReason(projectId, slot.jobId, slot.expiresAt)
    if (finished === null) continue
    yield* releaseAdmittedSlot(projectId, slot.jobId, finished.reason, finished.bytes)
    freed++
  }
  return freed
})

/** Claims the job's slot within the project's quotas; answers what the job may still download this month. */
export const admitJob = Effect.fn("admitJob")(function* (projectId: string, jobId: string) {
  const states = yield* AdmissionStates
  return yield* states.oneAtATime(
    projectId,
    claim(projectId, jobId).pipe(
      Effect.catchTag("ConcurrencyLimitExceeded", (full) =>
        Effect.gen(function* () {
          const freed = yield* releaseFinished(projectId)
          if (freed === 0) return yield* full
          return yield* claim(projectId, jobId)
        })
      )
    )
  )
})

/**
 * Claims a slot for a job that held one before (a retry): the cached admission state may still show the job's old
 * slot, released since by a worker elsewhere, and a claim decided from it would append nothing. So it is read afresh.
 */
export const admitRetriedJob = Effect.fn("admitRetriedJob")(function* (projectId: string, jobId: string) {
  ;(yield* AdmissionStates).forget(projectId)
  return yield* admitJob(projectId, jobId)
})
