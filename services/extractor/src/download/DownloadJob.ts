// Runs one queued download in steps: start the job, plan and fetch the media with progress, store the file, finish
// (complete or fail, and free the slot); a cancel or the job's end stops the run at any step.
import { Clock, Context, Effect, Layer } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { fileKindOf, planDownload } from "./DownloadPlan.ts"
import { FetchMedia } from "./FetchMedia.ts"
import { FinishRun } from "./FinishRun.ts"
import { handledByOf } from "./HandledBy.ts"
import { JobProgress } from "./JobProgress.ts"
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

      /** Plans and fetches the media, reporting its progress. */
      const download = Effect.fn("DownloadJob.download")(function* (command: DownloadMedia, workDir: string, concurrentFragments: number) {
        const plan = yield* planDownload(command.format)
        const reports = yield* progress.track(command)
        const fetchOptions = { workDir, projectId: command.projectId, concurrentFragments, onPercent: reports.onPercent }
        const file =
          plan._tag === "Subtitles"
            ? yield* media.fetchSubtitles(command, plan.language, fetchOptions)
            : yield* media.fetch(command, plan.spec, fetchOptions)
        yield* reports.report
        return { file, kind: fileKindOf(plan) }
      }, Effect.scoped)

      const attempt = Effect.fn("DownloadJob.attempt")(function* (command: DownloadMedia, delivery: Delivery) {
        const start = yield* starts.start(command, delivery)
        if (start._tag === "Over") return start.outcome
        const { job, canceled } = start

        const workDir = runDirectoryOf(config.workRoot, command.jobId, delivery.deliveryCount)
        const put: StoredByRun = { key: null }
        const outcome = yield* createRunDirectory(workDir).pipe(
          Effect.andThen(download(command, workDir, delivery.concurrentFragments)),
          Effect.flatMap(({ file, kind }) =>
            handledByOf(command, file).pipe(
              Effect.flatMap((handledBy) => Effect.map(artifacts.store(command, file, kind, put), (artifact) => ({ artifact, handledBy })))
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
        if (outcome === "canceled") return yield* finish.stopCanceled(command, put)
        if (outcome === "expired") return yield* finish.stopExpired(command, put)
        if (outcome._tag === "Failure") return yield* finish.failRun(command, outcome.failure)
        const { artifact, handledBy } = outcome.success
        return yield* finish.complete(command, artifact, handledBy, put)
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
  ).pipe(
    Layer.provide(
      Layer.mergeAll(StartRun.layer, JobProgress.layer).pipe(Layer.provideMerge(FinishRun.layer), Layer.provideMerge(StoreArtifact.layer))
    )
  )
}
