// Runs one queued download: start the job, fetch the media with progress, store the file, complete or fail, free the slot.
import { randomBytes } from "node:crypto"
import { mkdir, rm } from "node:fs/promises"
import { extname, join } from "node:path"
import { Clock, Context, Effect, Layer, Option, Schedule, Schema } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { SlotReleaseReason } from "@mds/shared/domain/admission/AdmissionEvent"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { slotReleaseBytes } from "@mds/shared/domain/job/JobSlot"
import { jobStatus } from "@mds/shared/domain/job/JobState"
import type { JobCommand } from "@mds/shared/domain/job/JobDecider"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { parseSubtitleFormatId } from "@mds/shared/domain/media/SubtitleTrack"
import { isBlockedExtractor, platformIdOf } from "@mds/shared/domain/platform/platformIdOf"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { countOne, extractionFailures } from "@mds/shared/observability/Metrics"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformOutcomes } from "../health/PlatformOutcomes.ts"
import type { DownloadedFile } from "../ytdlp/ResultLine.ts"
import { mimeTypeOf, safeFileName } from "./ArtifactFile.ts"
import { type DownloadFailed, jobFailure } from "./DownloadFailed.ts"
import { FetchMedia } from "./FetchMedia.ts"
import { JobCancelWatch } from "./JobCancelWatch.ts"
import { readJobState } from "./JobStateRead.ts"
import { initialProgressThrottle, nextProgressReport } from "./ProgressThrottle.ts"

export { DownloadFailed } from "./DownloadFailed.ts"

/** The key of the file a run put into the artifact store, once it is there. */
interface StoredByRun {
  key: string | null
}

export interface Delivery {
  readonly deliveryCount: number
  /** Tells JetStream the message is still being worked on (resets its ack timer). */
  readonly working: () => void
  /** HLS/DASH fragments its runs may fetch at once: the platform's setting, as far as its connection budget granted. */
  readonly concurrentFragments: number
}

/** "ack" once the job reached an end (or needs nothing more); "retry" when infrastructure failed on the way. */
export type DownloadOutcome = "ack" | "retry"

/** A job's end status, which is also why its slot is freed. */
const isSlotReleaseReason = Schema.is(SlotReleaseReason)

export class DownloadJob extends Context.Service<
  DownloadJob,
  {
    run(command: DownloadMedia, delivery: Delivery): Effect.Effect<DownloadOutcome>
  }
>()("mds/extractor/DownloadJob") {
  static readonly layer = Layer.effect(
    DownloadJob,
    Effect.gen(function* () {
      const store = yield* EventStore
      const artifacts = yield* ArtifactStore
      const media = yield* FetchMedia
      const lifetimes = yield* Lifetimes
      const config = yield* ExtractorConfig
      const outcomes = yield* PlatformOutcomes
      const cancels = yield* JobCancelWatch
      const provideStore = Effect.provideService(EventStore, store)
      // Several heartbeats per ack wait, so one delayed by a busy event loop never lets the message be redelivered.
      const heartbeatMs = Math.max(250, Math.floor(config.workAckWaitMs / 4))

      const jobCommand = (command: DownloadMedia, jobCmd: JobCommand) =>
        jobCommands(command.projectId, command.jobId)(jobCmd).pipe(provideStore)

      /** Fetches the media; progress goes through a mutable reading that a ticker reports, so output never waits on NATS. */
      const download = Effect.fn("DownloadJob.download")(function* (command: DownloadMedia, workDir: string, concurrentFragments: number) {
        const subtitleLanguage = parseSubtitleFormatId(command.format)
        const spec = Option.isSome(subtitleLanguage)
          ? null
          : yield* Option.match(parseFormatId(command.format), {
              onNone: () => Effect.fail(jobFailure("format_unavailable", `unknown format ${command.format}`)),
              onSome: Effect.succeed
            })
        let latest = 0
        let throttle = initialProgressThrottle
        const reportProgress = Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const percent = nextProgressReport(throttle, latest, now)
          if (percent === null) return Effect.void
          throttle = { reported: percent, reportedAt: now }
          return jobCommand(command, { _tag: "ReportProgress", jobId: command.jobId, percent, now }).pipe(
            Effect.catchCause((cause) => Effect.logWarning("progress report failed", cause))
          )
        })
        yield* reportProgress.pipe(Effect.repeat(Schedule.spaced(1000)), Effect.forkScoped)
        const fetchOptions = {
          workDir,
          projectId: command.projectId,
          concurrentFragments,
          onPercent: (percent: number) => (latest = percent)
        }
        // Extension: subtitles_<language> delivers one WebVTT file instead of the media.
        const file =
          spec === null
            ? yield* media.fetchSubtitles(command, Option.getOrThrow(subtitleLanguage), fetchOptions)
            : yield* media.fetch(command, spec, fetchOptions)
        yield* reportProgress
        return { file, kind: spec?.kind ?? ("video" as const) }
      }, Effect.scoped)

      /**
       * Storing is not interruptible: an upload (or a file move) goes on after its fiber is interrupted, so a cancel
       * or the job's end arriving meanwhile waits for it, and the run then removes what it stored (`put.key`).
       */
      const store_ = Effect.fn("DownloadJob.store")(function* (
        command: DownloadMedia,
        file: DownloadedFile,
        kind: "video" | "audio",
        put: StoredByRun
      ) {
        const ext = (file.ext ?? extname(file.filepath).slice(1)) || "bin"
        const filename = safeFileName(file.title ?? "media", ext)
        const mimeType = mimeTypeOf(ext, kind)
        const key = `jobs/${command.projectId}/${command.jobId}/${filename}`
        const stored = yield* artifacts.putFile(key, file.filepath, mimeType).pipe(
          Effect.tap(() => Effect.sync(() => (put.key = key))),
          Effect.uninterruptible,
          Effect.mapError((error) => jobFailure("internal_error", `storing the file failed: ${error.message}`))
        )
        return {
          key,
          filename,
          mimeType,
          sizeBytes: stored.sizeBytes,
          availableUntil: (yield* Clock.currentTimeMillis) + lifetimes.downloadUrlMs
        }
      })

      /**
       * The platform is the extractor that handled the download (a job by URL was classified by host before any
       * extraction). A page that embeds YouTube media is refused like a YouTube link, and its file is not kept.
       */
      const handledByOf = (command: DownloadMedia, file: DownloadedFile): Effect.Effect<string, DownloadFailed> => {
        const key = file.extractor_key ?? null
        if (key === null) return Effect.succeed(command.platform)
        if (isBlockedExtractor(key))
          return Effect.fail(jobFailure("unsupported_platform", "The media is hosted on YouTube, which is not a supported platform."))
        return Effect.succeed(platformIdOf(key))
      }

      /** Frees the job's slot; a completed job's release also counts its file's bytes toward the month's quota. */
      const finish = (command: DownloadMedia, reason: SlotReleaseReason, bytes = 0) =>
        releaseSlot(command.projectId, command.jobId, reason, bytes).pipe(provideStore, Effect.as<DownloadOutcome>("ack"))

      const fail = Effect.fn("DownloadJob.fail")(function* (command: DownloadMedia, failure: DownloadFailed) {
        const handled = yield* jobCommand(command, {
          _tag: "FailJob",
          jobId: command.jobId,
          error: { code: failure.code, message: failure.message, retryable: failure.retryable },
          now: yield* Clock.currentTimeMillis
        }).pipe(Effect.catchTag("InvalidJobTransition", () => Effect.succeed(null)))
        if (handled !== null && handled.events.length > 0) {
          yield* Effect.logInfo("job failed", { code: failure.code, message: failure.message })
        } else yield* Effect.logInfo("job had already ended; nothing to fail", { code: failure.code })
        return yield* finish(command, "failed")
      })

      /**
       * One directory per run: a job handed to a second worker while the first still runs (a long NATS outage
       * stops heartbeats) must not share files with it. DATA_DIR may be shared by several extractors.
       */
      const workDirOf = (command: DownloadMedia, delivery: Delivery) =>
        join(config.workRoot, `${command.jobId}-${delivery.deliveryCount}-${randomBytes(4).toString("hex")}`)

      /**
       * Runs of the job's current try started so far: the attempt the job's state holds (each JobStarted raises it by
       * one), less the runs before its latest retry (a retry is a new work message, whose deliveries count afresh).
       */
      const startedRuns = (command: DownloadMedia) =>
        readJobState(command.projectId, command.jobId).pipe(
          provideStore,
          Effect.map(({ state }) => (state?.attempt ?? 0) - (state?.retry?.afterAttempt ?? 0))
        )

      /** A file this run stored for a job that ended otherwise: nobody can fetch it, so it is not kept. */
      const discardStored = (put: StoredByRun) => (put.key === null ? Effect.void : artifacts.remove(put.key).pipe(Effect.ignore))

      const attempt = Effect.fn("DownloadJob.attempt")(function* (command: DownloadMedia, delivery: Delivery) {
        // A job whose every allowed run ended without a verdict (its worker was killed, or lost NATS) is given up on.
        // Deliveries also count the times pacing handed the job back; only then are its started runs read and counted.
        if (delivery.deliveryCount > config.workMaxAttempts && (yield* startedRuns(command)) >= config.workMaxAttempts) {
          // The dead runs' directories are removed by StaleWorkDirs when an extractor starts.
          return yield* fail(
            command,
            jobFailure(
              "attempts_exhausted",
              `The job was started ${config.workMaxAttempts} times and never finished (its worker stopped each time); it is not retried again.`
            )
          )
        }
        // Watching before the start: a cancel that lands before StartJob makes the start fail, one after it is seen here.
        const canceled = yield* cancels.watch(command.projectId, command.jobId)
        const started = yield* jobCommand(command, {
          _tag: "StartJob",
          jobId: command.jobId,
          workerId: config.workerId,
          now: yield* Clock.currentTimeMillis
        }).pipe(Effect.catchTag("InvalidJobTransition", (refused) => Effect.succeed(refused.status)))
        if (typeof started === "string") {
          // A job that already ended may still hold its slot: a run that recorded the end and then lost NATS before
          // freeing it is redelivered to do exactly that (freeing is a no-op for a job that holds none).
          if (isSlotReleaseReason(started)) {
            yield* Effect.logInfo("job already ended; freeing its slot", { status: started })
            const bytes =
              started === "completed"
                ? slotReleaseBytes((yield* readJobState(command.projectId, command.jobId).pipe(provideStore)).state)
                : 0
            return yield* finish(command, started, bytes)
          }
          yield* Effect.logInfo("job is not runnable (unknown); skipping")
          return "ack" as const
        }
        if (jobStatus(started.state) === "expired") {
          yield* Effect.logInfo("job expired before it started")
          return yield* finish(command, "expired")
        }
        // A StartJob that appended leaves a queued job's document; null only for a job never queued, refused above.
        const job = started.state
        if (job === null) return "ack" as const
        yield* Effect.logInfo("job started", { attempt: job.attempt })
        yield* Effect.sync(delivery.working).pipe(Effect.repeat(Schedule.spaced(heartbeatMs)), Effect.forkScoped)

        const workDir = workDirOf(command, delivery)
        const put: StoredByRun = { key: null }
        const outcome = yield* Effect.promise(() => mkdir(workDir, { recursive: true })).pipe(
          Effect.andThen(download(command, workDir, delivery.concurrentFragments)),
          Effect.flatMap(({ file, kind }) =>
            handledByOf(command, file).pipe(
              Effect.flatMap((handledBy) => Effect.map(store_(command, file, kind, put), (artifact) => ({ artifact, handledBy })))
            )
          ),
          Effect.result,
          // At the end of the job's lifetime nobody can read the result any more: stop (killing yt-dlp) and free the slot.
          Effect.raceFirst(Effect.sleep(Math.max(0, job.expiresAt - (yield* Clock.currentTimeMillis))).pipe(Effect.as("expired" as const))),
          // A client canceled the job: stop at once (killing yt-dlp and its ffmpeg); its partial files go with workDir.
          Effect.raceFirst(canceled.wait.pipe(Effect.as("canceled" as const))),
          Effect.ensuring(Effect.promise(() => rm(workDir, { recursive: true, force: true })))
        )
        // Reached once the run stopped: the race waits for the interrupted side (yt-dlp killed, storing finished).
        if (outcome === "canceled") {
          yield* discardStored(put)
          yield* Effect.logInfo("job canceled while processing; stopped")
          return yield* finish(command, "canceled")
        }
        if (outcome === "expired") {
          yield* discardStored(put)
          yield* jobCommand(command, { _tag: "ExpireJob", jobId: command.jobId, now: yield* Clock.currentTimeMillis })
          yield* Effect.logInfo("job expired while processing; stopped")
          return yield* finish(command, "expired")
        }
        if (outcome._tag === "Failure") {
          yield* countOne(extractionFailures, { operation: "download", platform: command.platform, code: outcome.failure.code })
          yield* outcomes.record(command.platform, outcome.failure)
          return yield* fail(command, outcome.failure)
        }

        const { artifact, handledBy } = outcome.success
        const completed = yield* jobCommand(command, {
          _tag: "CompleteJob",
          jobId: command.jobId,
          artifact,
          now: yield* Clock.currentTimeMillis,
          ...(handledBy === command.platform ? {} : { platform: handledBy })
        }).pipe(Effect.catchTag("InvalidJobTransition", (refused) => Effect.succeed(refused.status)))
        if (typeof completed === "string") {
          // The job ended meanwhile (expired or canceled): nobody can fetch the file, so it is not kept.
          yield* discardStored(put)
          yield* Effect.logInfo("job ended before completion; artifact discarded", { status: completed })
          return yield* finish(command, isSlotReleaseReason(completed) ? completed : "expired")
        }
        yield* Effect.logInfo("job completed", { key: artifact.key, sizeBytes: artifact.sizeBytes })
        yield* outcomes.record(handledBy, null)
        return yield* finish(command, "completed", artifact.sizeBytes)
      }, Effect.scoped)

      const run = (command: DownloadMedia, delivery: Delivery): Effect.Effect<DownloadOutcome> =>
        attempt(command, delivery).pipe(
          Effect.catchCause((cause) =>
            Effect.logError("job interrupted by an infrastructure failure; it will be redelivered", cause).pipe(
              Effect.as<DownloadOutcome>("retry")
            )
          ),
          Effect.annotateLogs({
            jobId: command.jobId,
            projectId: command.projectId,
            format: command.format,
            delivery: delivery.deliveryCount
          })
        )

      return DownloadJob.of({ run })
    })
  )
}
