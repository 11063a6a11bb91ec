// The aggregator's /metrics: jobs by state (folded from the job stream by an ordered consumer), consumer lag and
// work-queue depth read from JetStream at scrape time.
import { DeliverPolicy } from "@nats-io/jetstream"
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { ALL_JOBS_SUBJECT, JOBS_STREAM } from "@mds/shared/eventstore/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { collectJetStreamMetrics } from "@mds/shared/observability/JetStreamMetrics"
import { jobsByState, setGauge } from "@mds/shared/observability/Metrics"
import { metricsServer } from "@mds/shared/observability/MetricsServer"
import { Config, Effect, Layer, Option } from "effect"
import { applyToTally, countTally, type JobStateTally, TALLIED_STATES } from "./JobStateTally.ts"

export const AggregatorMetrics = Layer.unwrap(
  Effect.gen(function* () {
    // Without a metrics port nobody reads the tally: do not replay the job stream for it.
    if (Option.isNone(yield* Config.option(Config.Port("METRICS_PORT")))) return Layer.empty
    const { js } = yield* NatsClient
    const tally: JobStateTally = new Map()

    // The stream keeps every job that can still be read, so a replay from the start rebuilds the tally after a restart.
    const follow = Effect.gen(function* () {
      tally.clear()
      const messages = yield* Effect.acquireRelease(
        Effect.tryPromise(async () => {
          const consumer = await js.consumers.get(JOBS_STREAM.name, {
            filter_subjects: ALL_JOBS_SUBJECT,
            deliver_policy: DeliverPolicy.All
          })
          return consumer.consume()
        }),
        (iterator) =>
          Effect.promise(() =>
            iterator.close().then(
              () => undefined,
              () => undefined
            )
          )
      )
      yield* Effect.tryPromise(async () => {
        for await (const message of messages) {
          const event = decodeJobEventJson(message.string())
          if (Option.isSome(event)) applyToTally(tally, message.subject, event.value)
        }
      })
    }).pipe(
      Effect.scoped,
      Effect.catchCause((cause) => Effect.logWarning("job tally consumer stopped; restarting", cause)),
      Effect.andThen(Effect.sleep("1 second")),
      Effect.forever
    )

    const collect = Effect.gen(function* () {
      const counts = countTally(tally, Date.now())
      for (const state of TALLIED_STATES) yield* setGauge(jobsByState, { state }, counts[state])
      yield* collectJetStreamMetrics
    })

    return metricsServer(collect).pipe(Layer.merge(Layer.effectDiscard(Effect.forkScoped(follow))))
  })
)
