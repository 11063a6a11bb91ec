// Runs one queued download: start the job, run yt-dlp with progress, store the file, complete or fail, free the slot.
import { mkdir, rm } from "node:fs/promises"
import { extname, join } from "node:path"
import { Context, Effect, Layer, Option, Schedule, Schema } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { AdmissionDecider } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent, type SlotReleaseReason } from "@mds/shared/domain/admission/AdmissionEvent"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { JobDecider } from "@mds/shared/domain/job/JobDecider"
import { type JobErrorCode, JobEvent } from "@mds/shared/domain/job/JobEvent"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { handleCommand } from "@mds/shared/eventstore/CommandHandler"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { admissionSubject, jobSubject } from "@mds/shared/eventstore/Subjects"
import { egressProxy } from "../egress/EgressProxy.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformOutcomes } from "../health/PlatformOutcomes.ts"
import { countOne, extractionFailures, timed, ytDlpDuration } from "@mds/shared/observability/Metrics"
import { classifyFailure, failureMessage } from "../ytdlp/classifyFailure.ts"
import { parseProgressLine } from "../ytdlp/ProgressLine.ts"
import { type DownloadedFile, parseResultLine } from "../ytdlp/ResultLine.ts"
import { YtDlp } from "../ytdlp/YtDlp.ts"
import { downloadFlags } from "../ytdlp/YtDlpFlags.ts"
import { mimeTypeOf, safeFileName } from "./ArtifactFile.ts"
import { initialProgressThrottle, nextProgressReport } from "./ProgressThrottle.ts"

/** A failure that ends the job (it is recorded as JobFailed); anything else is retried by redelivery. */
export class DownloadFailed extends Schema.TaggedError<DownloadFailed>()("DownloadFailed", {
  code: Schema.String,
  message: Schema.String
}) {}

const jobFailure = (code: JobErrorCode, message: string) => new DownloadFailed({ code, message })

export interface Delivery {
  readonly deliveryCount: number
  /** Tells JetStream the message is still being worked on (resets its ack timer). */
  readonly working: () => void
}

/** "ack" once the job reached an end (or needs nothing more); "retry" when infrastructure failed on the way. */
export type DownloadOutcome = "ack" | "retry"

const HEARTBEAT_MS = 15_000

export class DownloadJob extends Context.Service<DownloadJob, {
  run(command: DownloadMedia, delivery: Delivery): Effect.Effect<DownloadOutcome>
}>()("mds/extractor/DownloadJob") {
  static readonly layer = Layer.effect(
    DownloadJob,
    Effect.gen(function*() {
      const store = yield* EventStore
      const artifacts = yield* ArtifactStore
      const policy = yield* EgressPolicy
      const ytdlp = yield* YtDlp
      const lifetimes = yield* Lifetimes
      const config = yield* ExtractorConfig
      const outcomes = yield* PlatformOutcomes
      const provideStore = Effect.provideService(EventStore, store)

      const jobCommand = (command: DownloadMedia, jobCmd: Parameters<typeof JobDecider.decide>[0], msgId: string) =>
        handleCommand({
          decider: JobDecider,
          codec: JobEvent,
          subject: jobSubject(command.projectId, command.jobId),
          command: jobCmd,
          msgId: (_event, index) => (index === 0 ? msgId : `${msgId}:${index}`)
        }).pipe(provideStore)

      const releaseSlot = (command: DownloadMedia, reason: SlotReleaseReason) =>
        handleCommand({
          decider: AdmissionDecider,
          codec: AdmissionEvent,
          subject: admissionSubject(command.projectId),
          hydrate: "last",
          command: { _tag: "ReleaseSlot", projectId: command.projectId, jobId: command.jobId, reason, now: Date.now() },
          msgId: () => `${command.jobId}:release`
        }).pipe(provideStore)

      /** Runs yt-dlp; progress goes through a mutable reading that a ticker reports, so output never waits on NATS. */
      const download = Effect.fn("DownloadJob.download")(function*(command: DownloadMedia, workDir: string, delivery: Delivery) {
        const spec = yield* Option.match(parseFormatId(command.format), {
          onNone: () => Effect.fail(jobFailure("format_unavailable", `unknown format ${command.format}`)),
          onSome: Effect.succeed
        })
        const url = yield* Effect.try({
          try: () => new URL(command.url),
          catch: () => jobFailure("url_not_allowed", "the URL is not valid")
        })
        yield* policy.check(url).pipe(Effect.mapError((error) => jobFailure("url_not_allowed", error.message)))
        const proxy = yield* egressProxy(policy)

        let latest = 0
        let result: DownloadedFile | null = null
        let throttle = initialProgressThrottle
        const onLine = (line: string) => {
          const percent = parseProgressLine(line)
          if (percent !== null) latest = percent
          const parsed = parseResultLine(line)
          if (Option.isSome(parsed)) result = parsed.value
        }
        const reportProgress = Effect.suspend(() => {
          const now = Date.now()
          const percent = nextProgressReport(throttle, latest, now)
          if (percent === null) return Effect.void
          throttle = { reported: percent, reportedAt: now }
          return jobCommand(command, { _tag: "ReportProgress", jobId: command.jobId, percent, now }, `${command.jobId}:progress:${percent}`)
            .pipe(Effect.catchCause((cause) => Effect.logWarning("progress report failed", cause)))
        })
        yield* reportProgress.pipe(Effect.repeat(Schedule.spaced(1000)), Effect.forkScoped)
        yield* Effect.sync(delivery.working).pipe(Effect.repeat(Schedule.spaced(HEARTBEAT_MS)), Effect.forkScoped)

        const flags = downloadFlags(spec, workDir, proxy.url, config.ffmpegPath)
        yield* timed(ytDlpDuration, { operation: "download", platform: command.platform }, ytdlp.run(url.href, flags, { cwd: workDir, onLine })).pipe(
          Effect.timeoutOrElse({
            duration: config.downloadTimeoutMs,
            orElse: () => Effect.fail(jobFailure("download_failed", `the download took longer than ${config.downloadTimeoutMs / 1000} s`))
          }),
          Effect.mapError((error) => {
            if (error._tag === "DownloadFailed") return error
            const code = classifyFailure(error.stderr, proxy.refusals.length > 0)
            if (code === "url_not_allowed") {
              return jobFailure(code, `a request was refused: ${proxy.refusals[0]?.message ?? "private address"}`)
            }
            return jobFailure(code === "failed" ? "download_failed" : code, failureMessage(error.stderr))
          })
        )
        yield* reportProgress
        const produced: DownloadedFile | null = result
        if (produced === null) return yield* jobFailure("download_failed", "the extractor reported no output file")
        return { file: produced, kind: spec.kind }
      }, Effect.scoped)

      const store_ = Effect.fn("DownloadJob.store")(function*(command: DownloadMedia, file: DownloadedFile, kind: "video" | "audio") {
        const ext = (file.ext ?? extname(file.filepath).slice(1)) || "bin"
        const filename = safeFileName(file.title ?? "media", ext)
        const mimeType = mimeTypeOf(ext, kind)
        const key = `jobs/${command.projectId}/${command.jobId}/${filename}`
        const stored = yield* artifacts.putFile(key, file.filepath, mimeType).pipe(
          Effect.mapError((error) => jobFailure("internal_error", `storing the file failed: ${error.message}`))
        )
        return { key, filename, mimeType, sizeBytes: stored.sizeBytes, availableUntil: Date.now() + lifetimes.downloadUrlMs }
      })

      const finish = (command: DownloadMedia, reason: SlotReleaseReason) =>
        releaseSlot(command, reason).pipe(Effect.as<DownloadOutcome>("ack"))

      const run = (command: DownloadMedia, delivery: Delivery): Effect.Effect<DownloadOutcome> =>
        Effect.gen(function*() {
          const log = Effect.annotateLogs({ jobId: command.jobId, projectId: command.projectId, format: command.format })
          const started = yield* jobCommand(
            command,
            { _tag: "StartJob", jobId: command.jobId, workerId: config.workerId, now: Date.now() },
            `${command.jobId}:start:${delivery.deliveryCount}`
          ).pipe(Effect.catchTag("InvalidJobTransition", () => Effect.succeed(null)))
          if (started === null) {
            yield* Effect.logInfo("job is not runnable (finished or unknown); skipping").pipe(log)
            return "ack" as const
          }
          if (started.events.some((event) => event._tag === "JobExpired")) {
            yield* Effect.logInfo("job expired before it started").pipe(log)
            return yield* finish(command, "expired")
          }
          yield* Effect.logInfo("job started", { attempt: started.state.attempt }).pipe(log)

          const workDir = join(config.workRoot, command.jobId)
          const outcome = yield* Effect.promise(() => rm(workDir, { recursive: true, force: true }).then(() => mkdir(workDir, { recursive: true }))).pipe(
            Effect.andThen(download(command, workDir, delivery)),
            Effect.flatMap(({ file, kind }) => store_(command, file, kind)),
            Effect.result,
            Effect.ensuring(Effect.promise(() => rm(workDir, { recursive: true, force: true })))
          )

          if (outcome._tag === "Success") {
            const artifact = outcome.success
            const completed = yield* jobCommand(command, { _tag: "CompleteJob", jobId: command.jobId, artifact, now: Date.now() }, `${command.jobId}:complete`)
              .pipe(Effect.catchTag("InvalidJobTransition", () => Effect.succeed(null)))
            if (completed === null) {
              // The job ended meanwhile (expired): nobody can fetch the file, so it is not kept.
              yield* artifacts.remove(artifact.key).pipe(Effect.ignore)
              yield* Effect.logInfo("job ended before completion; artifact discarded").pipe(log)
              return yield* finish(command, "expired")
            }
            yield* Effect.logInfo("job completed", { key: artifact.key, sizeBytes: artifact.sizeBytes }).pipe(log)
            yield* outcomes.record(command.platform, null)
            return yield* finish(command, "completed")
          }
          const failure = outcome.failure
          yield* countOne(extractionFailures, { operation: "download", platform: command.platform, code: failure.code })
          yield* outcomes.record(command.platform, failure)
          yield* jobCommand(
            command,
            {
              _tag: "FailJob",
              jobId: command.jobId,
              error: { code: failure.code as JobErrorCode, message: failure.message, retryable: failure.code === "download_failed" },
              now: Date.now()
            },
            `${command.jobId}:fail`
          ).pipe(Effect.catchTag("InvalidJobTransition", () => Effect.void))
          yield* Effect.logInfo("job failed", { code: failure.code, message: failure.message }).pipe(log)
          return yield* finish(command, "failed")
        }).pipe(
          Effect.catchCause((cause) =>
            Effect.logError("job interrupted by an infrastructure failure; it will be redelivered", cause).pipe(
              Effect.as<DownloadOutcome>("retry")
            )
          )
        )

      return DownloadJob.of({ run })
    })
  )
}
