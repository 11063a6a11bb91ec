// Extension: one delivery attempt of a stored job, as any deliverer makes it (the aggregator's delivery reactor, the
// lifecycle model): copy the sidecars and then the media from the service's store into the destination, record the
// outcome through the job's decider, and free the job's slot once it ended. Idempotent and safe to take over after a
// crash: an object already under its path is never written again (the attempt that died put it there), and only the
// job's next attempt is recorded.
import { Clock, Effect, Result } from "effect"
import { ArtifactStore } from "../../artifacts/ArtifactStore.ts"
import type { DeliveryError } from "../../domain/job/JobDelivery.ts"
import { slotReleaseBytes, slotReleaseOf } from "../../domain/job/JobSlot.ts"
import { isAwaitingDelivery } from "../../domain/job/JobState.ts"
import { releaseSlot } from "../admission/AdmissionCommands.ts"
import { type DeliveryDestination, DeliveryDestinations, DeliveryFailure } from "./DeliveryDestinations.ts"
import { jobCommands } from "./JobCommands.ts"
import { JobStates } from "./JobStates.ts"

export interface DeliverySettings {
  /** One delay per retry of a failed attempt (DELIVERY_RETRY_DELAYS). */
  readonly retryDelaysMs: ReadonlyArray<number>
}

/** What an attempt came to: nothing to deliver, not due yet, or the outcome recorded (the job's delivery status after it). */
export type DeliveryRound =
  | { readonly _tag: "Nothing" }
  | { readonly _tag: "Waiting"; readonly until: number }
  | { readonly _tag: "Recorded"; readonly status: "pending" | "delivered" | "failed" | "removed" }

const copyFailure = (error: DeliveryError) => new DeliveryFailure({ error })

/** Copies one stored object under `path`, unless an object is already there. */
const copyOnce = Effect.fn("DeliverJob.copy")(function* (target: DeliveryDestination, key: string, path: string, contentType: string) {
  if (yield* target.exists(path)) return
  const opened = yield* (yield* ArtifactStore).open(key).pipe(
    Effect.mapError((failed) =>
      copyFailure({
        code: "destination_failed",
        message: `the stored file ${failed._tag === "ArtifactNotFound" ? "is gone" : "cannot be read"}`
      })
    )
  )
  yield* target.put(path, { stream: opened.body, sizeBytes: opened.sizeBytes }, contentType)
})

/** One attempt for the job, if one is due: returns what it came to. */
export const deliverJob = Effect.fn("deliverJob")(function* (projectId: string, jobId: string, settings: DeliverySettings) {
  const { state } = yield* (yield* JobStates).current(projectId, jobId)
  if (state === null || state.delivery === undefined || state.artifact === null || !isAwaitingDelivery(state)) {
    return { _tag: "Nothing" } satisfies DeliveryRound
  }
  const delivery = state.delivery
  const artifact = state.artifact
  const due = delivery.retryAt ?? 0
  if ((yield* Clock.currentTimeMillis) < due) return { _tag: "Waiting", until: due } satisfies DeliveryRound
  const copied = yield* Effect.result(
    Effect.gen(function* () {
      const destination = yield* (yield* DeliveryDestinations).open(projectId, delivery.destinationId)
      // Sidecars first, the media last: a library that sees the media finds its sidecars beside it.
      for (const sidecar of delivery.sidecars) yield* copyOnce(destination, sidecar.key, sidecar.path, sidecar.contentType)
      yield* copyOnce(destination, artifact.key, delivery.path, artifact.mimeType)
    })
  )
  const handled = yield* jobCommands(
    projectId,
    jobId
  )({
    _tag: "RecordDelivery",
    jobId,
    attempt: delivery.attempts + 1,
    outcome: Result.isSuccess(copied) ? { _tag: "Delivered" } : { _tag: "Failed", error: copied.failure.error },
    retryDelaysMs: settings.retryDelaysMs,
    now: yield* Clock.currentTimeMillis
  })
  const reason = slotReleaseOf(handled.state)
  if (reason !== null) {
    yield* releaseSlot(projectId, jobId, reason, slotReleaseBytes(handled.state), {
      retry: handled.state?.retry?.number ?? 0,
      ...(handled.state?.claim === undefined ? {} : { claim: handled.state.claim })
    })
  }
  return { _tag: "Recorded", status: handled.state?.delivery?.status ?? "pending" } satisfies DeliveryRound
})
