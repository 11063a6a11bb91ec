// The aggregator's /metrics: jobs by state (folded from the job stream by an ordered consumer), consumer lag and
// work-queue depth read from JetStream at scrape time.
import { followJobEvents } from "@mds/shared/application/job/JobEventFollower"
import { Followers } from "@mds/shared/nats/Followers"
import { collectJetStreamMetrics } from "@mds/shared/observability/JetStreamMetrics"
import { jobsByState, projectDownloadedBytes, projectJobsEnded, setGauge } from "@mds/shared/observability/Metrics"
import { metricsServer } from "@mds/shared/observability/MetricsServer"
import { Config, Effect, Layer, Option } from "effect"
import { applyToTally, countTally, type JobStateTally, TALLIED_STATES } from "./JobStateTally.ts"
import { countJobEnd, END_OUTCOMES, emptyProjectTotals } from "./ProjectTotals.ts"

/** Name of the tally's follower in /v1/health (as `aggregator.job_tally`). */
export const TALLY_FOLLOWER = "job_tally"

export const AggregatorMetrics = Layer.unwrap(
  Effect.gen(function* () {
    // Without a metrics port nobody reads the tally: do not replay the job stream for it.
    if (Option.isNone(yield* Config.option(Config.Port("METRICS_PORT")))) return Layer.empty
    const tally: JobStateTally = new Map()
    const totals = emptyProjectTotals()

    // A replay of the job stream from its start rebuilds the tally and the per-project totals after a restart.
    const follow = Effect.gen(function* () {
      const follower = yield* followJobEvents(TALLY_FOLLOWER, (event, message) => {
        const before = tally.get(message.subject) ?? null
        applyToTally(tally, message.subject, event)
        countJobEnd(totals, before, tally.get(message.subject) ?? null)
      })
      ;(yield* Followers).register(follower)
    })

    const collect = Effect.gen(function* () {
      const counts = countTally(tally, Date.now())
      for (const state of TALLIED_STATES) yield* setGauge(jobsByState, { state }, counts[state])
      for (const [project, ended] of totals.ended) {
        for (const outcome of END_OUTCOMES) yield* setGauge(projectJobsEnded, { project, outcome }, ended[outcome])
      }
      for (const [project, bytes] of totals.bytes) yield* setGauge(projectDownloadedBytes, { project }, bytes)
      yield* collectJetStreamMetrics
    })

    return metricsServer(collect).pipe(Layer.merge(Layer.effectDiscard(follow)))
  })
)
