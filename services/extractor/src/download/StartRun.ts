// Start: takes a delivered job up. Gives up on a job whose every run died, watches for a cancel, records StartJob (a
// job that already ended only has its slot freed), and keeps the delivery alive while the run lasts.
import { Clock, Context, Effect, Layer, Schedule } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { slotReleaseBytes } from "@mds/shared/domain/job/JobSlot"
import { jobStatus } from "@mds/shared/domain/job/JobState"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { jobFailure } from "./DownloadFailed.ts"
import { FinishRun, isSlotReleaseReason } from "./FinishRun.ts"
import { type CancelSignal, JobCancelWatch } from "./JobCancelWatch.ts"
import { readJobState } from "./JobStateRead.ts"
import type { Delivery, DownloadOutcome } from "./WorkDelivery.ts"

/** A run that goes on (its job as started, and the signal of a cancel), or one that is over before it began. */
export type RunStart =
  | { readonly _tag: "Started"; readonly job: JobView; readonly canceled: CancelSignal }
  | { readonly _tag: "Over"; readonly outcome: DownloadOutcome }

const over = (outcome: DownloadOutcome): RunStart => ({ _tag: "Over", outcome })

export class StartRun extends Context.Service<StartRun>()("mds/extractor/StartRun", {
  make: Effect.gen(function* () {
    const provideStore = Effect.provideService(EventStore, yield* EventStore)
    const config = yield* ExtractorConfig
    const cancels = yield* JobCancelWatch
    const finish = yield* FinishRun
    // Several heartbeats per ack wait, so one delayed by a busy event loop never lets the message be redelivered.
    const heartbeatMs = Math.max(250, Math.floor(config.workAckWaitMs / 4))

    /**
     * Runs of the job's current try started so far: the attempt the job's state holds (each JobStarted raises it by
     * one), less the runs before its latest retry (a retry is a new work message, whose deliveries count afresh).
     */
    const startedRuns = (command: DownloadMedia) =>
      readJobState(command.projectId, command.jobId).pipe(
        provideStore,
        Effect.map(({ state }) => (state?.attempt ?? 0) - (state?.retry?.afterAttempt ?? 0))
      )

    /** The cancel watch and the heartbeat last as long as the caller's scope: the run. */
    const start = Effect.fn("StartRun.start")(function* (command: DownloadMedia, delivery: Delivery) {
      // A job whose every allowed run ended without a verdict (its worker was killed, or lost NATS) is given up on.
      // Deliveries also count the times pacing handed the job back; only then are its started runs read and counted.
      if (delivery.deliveryCount > config.workMaxAttempts && (yield* startedRuns(command)) >= config.workMaxAttempts) {
        // The dead runs' directories are removed by StaleWorkDirs when an extractor starts.
        return over(
          yield* finish.fail(
            command,
            jobFailure(
              "attempts_exhausted",
              `The job was started ${config.workMaxAttempts} times and never finished (its worker stopped each time); it is not retried again.`
            )
          )
        )
      }
      // Watching before the start: a cancel that lands before StartJob makes the start fail, one after it is seen here.
      const canceled = yield* cancels.watch(command.projectId, command.jobId)
      const started = yield* jobCommands(
        command.projectId,
        command.jobId
      )({
        _tag: "StartJob",
        jobId: command.jobId,
        workerId: config.workerId,
        now: yield* Clock.currentTimeMillis
      }).pipe(
        provideStore,
        Effect.catchTag("InvalidJobTransition", (refused) => Effect.succeed(refused.status))
      )
      if (typeof started === "string") {
        // A job that already ended may still hold its slot: a run that recorded the end and then lost NATS before
        // freeing it is redelivered to do exactly that (freeing is a no-op for a job that holds none).
        if (isSlotReleaseReason(started)) {
          yield* Effect.logInfo("job already ended; freeing its slot", { status: started })
          const bytes =
            started === "completed" ? slotReleaseBytes((yield* readJobState(command.projectId, command.jobId).pipe(provideStore)).state) : 0
          return over(yield* finish.release(command, started, bytes))
        }
        yield* Effect.logInfo("job is not runnable (unknown); skipping")
        return over("ack")
      }
      if (jobStatus(started.state) === "expired") {
        yield* Effect.logInfo("job expired before it started")
        return over(yield* finish.release(command, "expired"))
      }
      // A StartJob that appended leaves a queued job's document; null only for a job never queued, refused above.
      const job = started.state
      if (job === null) return over("ack")
      yield* Effect.logInfo("job started", { attempt: job.attempt })
      yield* Effect.sync(delivery.working).pipe(Effect.repeat(Schedule.spaced(heartbeatMs)), Effect.forkScoped)
      return { _tag: "Started", job, canceled } satisfies RunStart
    })

    return { start }
  })
}) {
  static readonly layer = Layer.effect(StartRun, StartRun.make)
}
