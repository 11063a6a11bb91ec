// The aggregator's /metrics: jobs by state (folded from the job stream by an ordered consumer), consumer lag and
// work-queue depth read from JetStream at scrape time.
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { ALL_JOBS_SUBJECT, JOBS_STREAM } from "@mds/shared/eventstore/Subjects"
import { startFollower } from "@mds/shared/nats/StreamFollower"
import { collectJetStreamMetrics } from "@mds/shared/observability/JetStreamMetrics"
import { jobsByState, setGauge } from "@mds/shared/observability/Metrics"
import { metricsServer } from "@mds/shared/observability/MetricsServer"
import { Config, Effect, Layer, Option } from "effect"
import { applyToTally, countTally, type JobStateTally, TALLIED_STATES } from "./JobStateTally.ts"

export const AggregatorMetrics = Layer.unwrap(
  Effect.gen(function* () {
    // Without a metrics port nobody reads the tally: do not replay the job stream for it.
    if (Option.isNone(yield* Config.option(Config.Port("METRICS_PORT")))) return Layer.empty
    const tally: JobStateTally = new Map()

    // The stream keeps every job that can still be read, so a replay from the start rebuilds the tally after a restart;
    // a consumer that stops delivering is re-created after the last message it delivered.
    const follow = startFollower({
      name: "aggregator-job-tally",
      stream: JOBS_STREAM.name,
      filterSubject: ALL_JOBS_SUBJECT,
      from: "all",
      onMessage: (message) => {
        const event = decodeJobEventJson(message.data)
        if (Option.isSome(event)) applyToTally(tally, message.subject, event.value)
      }
    })

    const collect = Effect.gen(function* () {
      const counts = countTally(tally, Date.now())
      for (const state of TALLIED_STATES) yield* setGauge(jobsByState, { state }, counts[state])
      yield* collectJetStreamMetrics
    })

    return metricsServer(collect).pipe(Layer.merge(Layer.effectDiscard(follow)))
  })
)
