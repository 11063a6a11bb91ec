// Finish: records how a run ended (JobRun.ts: completed, failed, canceled or expired, with the slot's release), and
// what is the worker's own around it: the artifact kept or discarded, the platform's outcome, the metrics, and what
// becomes of the work message (a run a later delivery took over leaves the message to that one).
import { Context, Effect, Layer } from "effect"
import { awaitStreamStart, completeRun, failRun, type RunEnd, stopCanceledRun, stopExpiredRun } from "@mds/shared/application/job/JobRun"
import type { JobStates } from "@mds/shared/application/job/JobStates"
import type { Lifetimes } from "@mds/shared/config/Lifetimes"
import type { LiveWait } from "@mds/shared/config/LiveWait"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { JobArtifact } from "@mds/shared/domain/job/JobEvent"
import type { PartialReason } from "@mds/shared/domain/job/JobRecording"
import type { EventStore } from "@mds/shared/eventstore/EventStore"
import { countOne, extractionFailures } from "@mds/shared/observability/Metrics"
import { PlatformOutcomes } from "../health/PlatformOutcomes.ts"
import type { DeliveryFilesOfRun } from "./DeliveryFiles.ts"
import type { DownloadFailed } from "./DownloadFailed.ts"
import { StoreArtifact, type StoredByRun } from "./StoreArtifact.ts"
import type { DownloadOutcome } from "./WorkDelivery.ts"

/** What the worker does with the message once the run's end is written. */
const outcomeOf = (end: RunEnd): DownloadOutcome => (end === "superseded" ? "abandon" : "ack")

export class FinishRun extends Context.Service<FinishRun>()("mds/extractor/FinishRun", {
  make: Effect.gen(function* () {
    const services = yield* Effect.context<EventStore | JobStates | Lifetimes | LiveWait>()
    const outcomes = yield* PlatformOutcomes
    const artifacts = yield* StoreArtifact
    const superseded = Effect.logInfo("a later delivery of the job's message took the run over; this run ends without a word")

    /** Extension: the run found the stream not begun: the job waits for it (or fails, if it waited once already). */
    const awaitStart = Effect.fn("FinishRun.awaitStart")(function* (command: DownloadMedia, attempt: number, failure: DownloadFailed) {
      const end = yield* awaitStreamStart(command, attempt, failure.startsAt ?? null).pipe(Effect.provide(services))
      if (end === "recorded")
        yield* Effect.logInfo("stream not begun; the job waits for it, or failed if it had waited", { message: failure.message })
      else if (end === "ended") yield* Effect.logInfo("job had already ended; nothing to wait for")
      else yield* superseded
      return outcomeOf(end)
    })

    /**
     * The run's fetch, conversion or storing failed: counted against the job's platform, then the job fails. A stream
     * that has not begun is no failure of the platform's: the job waits for it.
     */
    const failRunOf = Effect.fn("FinishRun.fail")(function* (command: DownloadMedia, attempt: number, failure: DownloadFailed) {
      if (failure.code === "live_not_started") return yield* awaitStart(command, attempt, failure)
      yield* countOne(extractionFailures, { operation: "download", platform: command.platform, code: failure.code })
      yield* outcomes.record(command.platform, failure)
      const end = yield* failRun(command, attempt, { code: failure.code, message: failure.message, retryable: failure.retryable }).pipe(
        Effect.provide(services)
      )
      if (end === "recorded") yield* Effect.logInfo("job failed", { code: failure.code, message: failure.message })
      else if (end === "ended") yield* Effect.logInfo("job had already ended; nothing to fail", { code: failure.code })
      else yield* superseded
      return outcomeOf(end)
    })

    /** A client canceled the job and the run stopped: what it stored is removed. */
    const stopCanceled = Effect.fn("FinishRun.stopCanceled")(function* (command: DownloadMedia, attempt: number, put: StoredByRun) {
      yield* artifacts.discard(put)
      yield* Effect.logInfo("job canceled while processing; stopped")
      return outcomeOf(yield* stopCanceledRun(command, attempt).pipe(Effect.provide(services)))
    })

    /** The job's lifetime ended during the run, which stopped: the job is expired and what the run stored removed. */
    const stopExpired = Effect.fn("FinishRun.stopExpired")(function* (command: DownloadMedia, attempt: number, put: StoredByRun) {
      yield* artifacts.discard(put)
      const end = yield* stopExpiredRun(command, attempt).pipe(Effect.provide(services))
      yield* Effect.logInfo("job expired while processing; stopped")
      return outcomeOf(end)
    })

    /** Records the stored file as the job's; `handledBy` is the platform the download counts for. */
    const complete = Effect.fn("FinishRun.complete")(function* (
      command: DownloadMedia,
      attempt: number,
      artifact: JobArtifact,
      handledBy: string,
      put: StoredByRun,
      delivery?: DeliveryFilesOfRun,
      /** Extension: the file holds less than asked (a lost recording's kept parts joined). */
      partial?: PartialReason
    ) {
      const end = yield* completeRun(command, attempt, artifact, handledBy, delivery, partial).pipe(Effect.provide(services))
      if (end !== "recorded") {
        // The job ended meanwhile (expired or canceled), or another run holds it now: nobody fetches this file.
        yield* artifacts.discard(put)
        if (end === "ended") yield* Effect.logInfo("job ended before completion; artifact discarded")
        else yield* superseded
        return outcomeOf(end)
      }
      yield* Effect.logInfo(delivery === undefined ? "job completed" : "job stored; its delivery follows", {
        key: artifact.key,
        sizeBytes: artifact.sizeBytes
      })
      yield* outcomes.record(handledBy, null)
      return outcomeOf(end)
    })

    return { failRun: failRunOf, stopCanceled, stopExpired, complete }
  })
}) {
  static readonly layer = Layer.effect(FinishRun, FinishRun.make)
}
