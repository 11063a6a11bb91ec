// Runs one queued download in steps: start the job, plan and fetch the media with progress, store the file, finish
// (complete or fail, and free the slot); a cancel or the job's end stops the run at any step.
import { Clock, Context, Effect, Layer } from "effect"
import { JobStates } from "@mds/shared/application/job/JobStates"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { keptOfLostRecording } from "@mds/shared/domain/job/JobRecording"
import { formatIdOf } from "@mds/shared/domain/media/FormatId"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { fileKindOf, planDownload } from "./DownloadPlan.ts"
import { FetchMedia } from "./FetchMedia.ts"
import { FinishRun } from "./FinishRun.ts"
import { handledByOf } from "./HandledBy.ts"
import { JobProgress } from "./JobProgress.ts"
import { LiveRecordings } from "./LiveRecording.ts"
import { DeliveryFiles } from "./DeliveryFiles.ts"
import { type KeptParts, RecordingParts } from "./RecordingParts.ts"
import { createRunDirectory, removeRunDirectory, runDirectoryOf } from "./RunDirectory.ts"
import { StartRun } from "./StartRun.ts"
import { StoreArtifact, type StoredByRun } from "./StoreArtifact.ts"
import type { Delivery, DownloadOutcome } from "./WorkDelivery.ts"

export class DownloadJob extends Context.Service<
  DownloadJob,
  {
    run(command: DownloadMedia, delivery: Delivery): Effect.Effect<DownloadOutcome>
  }
>()("mds/extractor/DownloadJob") {
  /** The steps are the job's own; what they need (event store, artifacts, FetchMedia, the cancel watch…) is provided. */
  static readonly layer = Layer.effect(
    DownloadJob,
    Effect.gen(function* () {
      const media = yield* FetchMedia
      const config = yield* ExtractorConfig
      const starts = yield* StartRun
      const progress = yield* JobProgress
      const artifacts = yield* StoreArtifact
      const finish = yield* FinishRun
      const recordings = yield* LiveRecordings
      const deliveryFiles = yield* DeliveryFiles
      const parts = yield* RecordingParts

      /** Plans and fetches the media, reporting its progress. */
      const download = Effect.fn("DownloadJob.download")(function* (
        command: DownloadMedia,
        attempt: number,
        workDir: string,
        concurrentFragments: number,
        stopRequested: Effect.Effect<void>,
        kept: KeptParts
      ) {
        const plan = yield* planDownload(command.format)
        const reports = yield* progress.track(command, attempt)
        const live = yield* recordings.track(command, attempt, workDir, stopRequested, kept)
        const fetchOptions = { workDir, projectId: command.projectId, concurrentFragments, onPercent: reports.onPercent, live }
        const file =
          plan._tag === "Subtitles"
            ? yield* media.fetchSubtitles(command, plan.language, fetchOptions)
            : yield* media.fetch(command, plan.spec, fetchOptions)
        yield* reports.report
        if (live.recording()) yield* live.finish
        return { file, kind: fileKindOf(plan) }
      }, Effect.scoped)

      /** Extension: joins the parts a lost recording kept (its worker died mid-recording) into the job's file. */
      const joinLost = Effect.fn("DownloadJob.joinLost")(function* (command: DownloadMedia, chunks: number, workDir: string) {
        const kind = fileKindOf(yield* planDownload(command.format))
        yield* Effect.logInfo("the job's recording was lost with its worker: joining the parts it kept", { chunks })
        return { file: yield* parts.join(command, chunks, workDir, kind), kind }
      })

      const attempt = Effect.fn("DownloadJob.attempt")(function* (command: DownloadMedia, delivery: Delivery) {
        const start = yield* starts.start(command, delivery)
        if (start._tag === "Over") return start.outcome
        const { job, canceled } = start

        const workDir = runDirectoryOf(config.workRoot, command.jobId, delivery.deliveryCount)
        const put: StoredByRun = { key: null }
        // Extension: a recording lost with its worker after keeping parts is completed from them (partial), not recorded.
        const lost = keptOfLostRecording(job)
        const kept: KeptParts = { chunks: lost?.chunks ?? 0, bytes: lost?.bytes ?? 0 }
        const produce =
          lost === null
            ? download(command, job.attempt, workDir, delivery.concurrentFragments, canceled.stopRequested, kept)
            : joinLost(command, lost.chunks, workDir)
        const outcome = yield* createRunDirectory(workDir).pipe(
          Effect.andThen(produce),
          Effect.flatMap(({ file, kind }) =>
            handledByOf(command, file).pipe(
              Effect.flatMap((handledBy) => Effect.map(artifacts.store(command, file, kind, put), (artifact) => ({ artifact, handledBy }))),
              // A job with a destination: its sidecars stored beside the file, and where they go.
              Effect.flatMap(({ artifact, handledBy }) =>
                Effect.map(deliveryFiles.prepare(command, file, artifact, workDir), (delivery) => ({ artifact, handledBy, delivery }))
              )
            )
          ),
          Effect.result,
          // At the end of the job's lifetime nobody can read the result any more: stop (killing yt-dlp) and free the slot.
          Effect.raceFirst(Effect.sleep(Math.max(0, job.expiresAt - (yield* Clock.currentTimeMillis))).pipe(Effect.as("expired" as const))),
          // A client canceled the job: stop at once (killing yt-dlp and its ffmpeg); its partial files go with workDir.
          Effect.raceFirst(canceled.wait.pipe(Effect.as("canceled" as const))),
          Effect.ensuring(removeRunDirectory(workDir))
        )
        // Reached once the run stopped: the race waits for the interrupted side (yt-dlp killed, storing finished).
        const ended =
          outcome === "canceled"
            ? yield* finish.stopCanceled(command, job.attempt, put)
            : outcome === "expired"
              ? yield* finish.stopExpired(command, job.attempt, put)
              : outcome._tag === "Failure"
                ? yield* finish.failRun(command, job.attempt, outcome.failure)
                : yield* finish.complete(
                    command,
                    job.attempt,
                    outcome.success.artifact,
                    outcome.success.handledBy,
                    put,
                    outcome.success.delivery,
                    lost === null ? undefined : "worker_lost"
                  )
        // The job's end is written: a recording's kept parts are nobody's any more (a run taken over leaves them).
        if (ended === "ack" && kept.chunks > 0) yield* parts.remove(command, kept.chunks)
        return ended
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
            format: formatIdOf(command.format),
            delivery: delivery.deliveryCount
          })
        )

      return DownloadJob.of({ run })
    })
  ).pipe(
    Layer.provide(
      Layer.mergeAll(StartRun.layer, JobProgress.layer, LiveRecordings.layer, DeliveryFiles.layer).pipe(
        Layer.provideMerge(RecordingParts.layer),
        Layer.provideMerge(FinishRun.layer),
        Layer.provideMerge(StoreArtifact.layer),
        // The extractor holds no read model: a job's state is folded from its events.
        Layer.provide(JobStates.fromEvents)
      )
    )
  )
}
