// Finish: records how a run ended (completed, failed, canceled or expired) and frees the job's slot.
import { Clock, Context, Effect, Layer, Schema } from "effect"
import { releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { SlotReleaseReason } from "@mds/shared/domain/admission/AdmissionEvent"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import type { JobArtifact } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { countOne, extractionFailures } from "@mds/shared/observability/Metrics"
import { PlatformOutcomes } from "../health/PlatformOutcomes.ts"
import type { DownloadFailed } from "./DownloadFailed.ts"
import { StoreArtifact, type StoredByRun } from "./StoreArtifact.ts"
import type { DownloadOutcome } from "./WorkDelivery.ts"

/** A job's end status, which is also why its slot is freed. */
export const isSlotReleaseReason = Schema.is(SlotReleaseReason)

export class FinishRun extends Context.Service<FinishRun>()("mds/extractor/FinishRun", {
  make: Effect.gen(function* () {
    const provideStore = Effect.provideService(EventStore, yield* EventStore)
    const outcomes = yield* PlatformOutcomes
    const artifacts = yield* StoreArtifact

    /** Frees the job's slot; a completed job's release also counts its file's bytes toward the month's quota. */
    const release = (command: DownloadMedia, reason: SlotReleaseReason, bytes = 0) =>
      releaseSlot(command.projectId, command.jobId, reason, bytes).pipe(provideStore, Effect.as<DownloadOutcome>("ack"))

    /** Records the job as failed (unless it had already ended) and frees its slot. */
    const fail = Effect.fn("FinishRun.fail")(function* (command: DownloadMedia, failure: DownloadFailed) {
      const handled = yield* jobCommands(
        command.projectId,
        command.jobId
      )({
        _tag: "FailJob",
        jobId: command.jobId,
        error: { code: failure.code, message: failure.message, retryable: failure.retryable },
        now: yield* Clock.currentTimeMillis
      }).pipe(
        provideStore,
        Effect.catchTag("InvalidJobTransition", () => Effect.succeed(null))
      )
      if (handled !== null && handled.events.length > 0) {
        yield* Effect.logInfo("job failed", { code: failure.code, message: failure.message })
      } else yield* Effect.logInfo("job had already ended; nothing to fail", { code: failure.code })
      return yield* release(command, "failed")
    })

    /** The run's fetch, conversion or storing failed: counted against the job's platform, then the job fails. */
    const failRun = (command: DownloadMedia, failure: DownloadFailed) =>
      Effect.gen(function* () {
        yield* countOne(extractionFailures, { operation: "download", platform: command.platform, code: failure.code })
        yield* outcomes.record(command.platform, failure)
        return yield* fail(command, failure)
      })

    /** A client canceled the job and the run stopped: what it stored is removed. */
    const stopCanceled = (command: DownloadMedia, put: StoredByRun) =>
      Effect.gen(function* () {
        yield* artifacts.discard(put)
        yield* Effect.logInfo("job canceled while processing; stopped")
        return yield* release(command, "canceled")
      })

    /** The job's lifetime ended during the run, which stopped: the job is expired and what the run stored removed. */
    const stopExpired = (command: DownloadMedia, put: StoredByRun) =>
      Effect.gen(function* () {
        yield* artifacts.discard(put)
        yield* jobCommands(
          command.projectId,
          command.jobId
        )({
          _tag: "ExpireJob",
          jobId: command.jobId,
          now: yield* Clock.currentTimeMillis
        }).pipe(provideStore)
        yield* Effect.logInfo("job expired while processing; stopped")
        return yield* release(command, "expired")
      })

    /** Records the stored file as the job's; `handledBy` is the platform the download counts for. */
    const complete = (command: DownloadMedia, artifact: JobArtifact, handledBy: string, put: StoredByRun) =>
      Effect.gen(function* () {
        const completed = yield* jobCommands(
          command.projectId,
          command.jobId
        )({
          _tag: "CompleteJob",
          jobId: command.jobId,
          artifact,
          now: yield* Clock.currentTimeMillis,
          ...(handledBy === command.platform ? {} : { platform: handledBy })
        }).pipe(
          provideStore,
          Effect.catchTag("InvalidJobTransition", (refused) => Effect.succeed(refused.status))
        )
        if (typeof completed === "string") {
          // The job ended meanwhile (expired or canceled): nobody can fetch the file, so it is not kept.
          yield* artifacts.discard(put)
          yield* Effect.logInfo("job ended before completion; artifact discarded", { status: completed })
          return yield* release(command, isSlotReleaseReason(completed) ? completed : "expired")
        }
        yield* Effect.logInfo("job completed", { key: artifact.key, sizeBytes: artifact.sizeBytes })
        yield* outcomes.record(handledBy, null)
        return yield* release(command, "completed", artifact.sizeBytes)
      })

    return { release, fail, failRun, stopCanceled, stopExpired, complete }
  })
}) {
  static readonly layer = Layer.effect(FinishRun, FinishRun.make)
}
