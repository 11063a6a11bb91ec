// Start: takes a delivered job up. Watches for a cancel, then the run's start (JobRun.ts: attempts exhausted, StartJob,
// the slot of a job that already ended), and keeps the delivery alive while the run lasts.
import { Context, Effect, Layer, Schedule } from "effect"
import { startRun } from "@mds/shared/application/job/JobRun"
import type { JobStates } from "@mds/shared/application/job/JobStates"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import type { JobView } from "@mds/shared/domain/job/JobView"
import type { EventStore } from "@mds/shared/eventstore/EventStore"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { type CancelSignal, JobCancelWatch } from "./JobCancelWatch.ts"
import type { Delivery, DownloadOutcome } from "./WorkDelivery.ts"

/** A run that goes on (its job as started, and the signal of a cancel), or one that is over before it began. */
export type RunStart =
  | { readonly _tag: "Started"; readonly job: JobView; readonly canceled: CancelSignal }
  | { readonly _tag: "Over"; readonly outcome: DownloadOutcome }

const over = (outcome: DownloadOutcome): RunStart => ({ _tag: "Over", outcome })

export class StartRun extends Context.Service<StartRun>()("mds/extractor/StartRun", {
  make: Effect.gen(function* () {
    const services = yield* Effect.context<EventStore | JobStates>()
    const config = yield* ExtractorConfig
    const cancels = yield* JobCancelWatch
    // Several heartbeats per ack wait, so one delayed by a busy event loop never lets the message be redelivered.
    const heartbeatMs = Math.max(250, Math.floor(config.workAckWaitMs / 4))

    /** The cancel watch and the heartbeat last as long as the caller's scope: the run. */
    const start = Effect.fn("StartRun.start")(function* (command: DownloadMedia, delivery: Delivery) {
      // Watching before the start: a cancel that lands before StartJob makes the start fail, one after it is seen here.
      const canceled = yield* cancels.watch(command.projectId, command.jobId)
      const started = yield* startRun(command, {
        workerId: config.workerId,
        workSeq: delivery.workSeq,
        deliveryCount: delivery.deliveryCount,
        maxAttempts: config.workMaxAttempts
      }).pipe(Effect.provide(services))
      switch (started._tag) {
        case "Exhausted":
          // The dead runs' directories are removed by StaleWorkDirs when an extractor starts.
          yield* Effect.logInfo("job failed: its every allowed run died", { attempts: config.workMaxAttempts })
          return over("ack")
        case "Ended":
          yield* Effect.logInfo("job already ended; its slot freed", { status: started.status })
          return over("ack")
        case "NotCurrent":
          yield* Effect.logInfo(
            started.reason === "other_try"
              ? "work message of an earlier try; its slot freed, nothing to run"
              : "another work message runs this try already; nothing to run",
            { reason: started.reason }
          )
          return over("ack")
        case "Unknown":
          yield* Effect.logInfo("job is not runnable (unknown); skipping")
          return over("ack")
        case "Started":
          yield* Effect.logInfo("job started", { attempt: started.job.attempt })
          yield* Effect.sync(delivery.working).pipe(Effect.repeat(Schedule.spaced(heartbeatMs)), Effect.forkScoped)
          return { _tag: "Started", job: started.job, canceled } satisfies RunStart
      }
    })

    return { start }
  })
}) {
  static readonly layer = Layer.effect(StartRun, StartRun.make)
}
