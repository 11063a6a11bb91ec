// Progress: a run's download percent recorded as the job's progress. yt-dlp's lines only set the latest reading and a
// ticker records it once a second through the throttle, so reading yt-dlp's output never waits on NATS.
import { Clock, Context, Effect, Layer, Schedule } from "effect"
import type { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { initialProgressThrottle, nextProgressReport } from "./ProgressThrottle.ts"

export class JobProgress extends Context.Service<JobProgress>()("mds/extractor/JobProgress", {
  make: Effect.gen(function* () {
    const store = yield* EventStore

    /** Reports the job's progress while the scope lasts: `onPercent` takes readings, `report` records the latest now. */
    /** `attempt`: the run's, so that a run a later attempt took over reports nothing. */
    const track = (command: DownloadMedia, attempt: number) =>
      Effect.gen(function* () {
        let latest = 0
        let throttle = initialProgressThrottle
        const report = Effect.flatMap(Clock.currentTimeMillis, (now) => {
          const percent = nextProgressReport(throttle, latest, now)
          if (percent === null) return Effect.void
          throttle = { reported: percent, reportedAt: now }
          return jobCommands(
            command.projectId,
            command.jobId
          )({ _tag: "ReportProgress", jobId: command.jobId, percent, now, attempt }).pipe(
            Effect.provideService(EventStore, store),
            Effect.catchCause((cause) => Effect.logWarning("progress report failed", cause))
          )
        })
        yield* report.pipe(Effect.repeat(Schedule.spaced(1000)), Effect.forkScoped)
        const onPercent = (percent: number) => {
          latest = percent
        }
        return { onPercent, report }
      })

    return { track }
  })
}) {
  static readonly layer = Layer.effect(JobProgress, JobProgress.make)
}
