// The durable pull consumer "extractor" on the work queue: takes DownloadMedia commands, WORKER_CONCURRENCY at a time.
import { AckPolicy, type JsMsg } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { Effect, Layer, Schedule, Schema, Stream } from "effect"
import { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { EventStoreError } from "@mds/shared/eventstore/EventStore"
import { DOWNLOAD_WORK_SUBJECT, WORK_STREAM } from "@mds/shared/eventstore/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { withMessageSpan } from "@mds/shared/observability/TraceContext"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { DownloadJob } from "./DownloadJob.ts"

export const DOWNLOAD_CONSUMER = "extractor"
const ACK_WAIT_MS = 60_000
const MAX_DELIVER = 5
const RETRY_DELAY_MS = 5_000

const decodeCommand = Schema.decodeUnknownEffect(Schema.fromJsonString(DownloadMedia))

const consumerError = (operation: string) => (cause: unknown) =>
  new EventStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

/** Creates the consumer, or brings an existing one to this configuration. */
export const ensureDownloadConsumer = Effect.gen(function*() {
  const { jsm } = yield* NatsClient
  const config = {
    durable_name: DOWNLOAD_CONSUMER,
    filter_subject: DOWNLOAD_WORK_SUBJECT,
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(ACK_WAIT_MS),
    max_deliver: MAX_DELIVER
  }
  yield* Effect.tryPromise({
    try: async () => {
      const existing = await jsm.consumers.info(WORK_STREAM.name, DOWNLOAD_CONSUMER).catch(() => null)
      if (existing === null) await jsm.consumers.add(WORK_STREAM.name, config)
      else await jsm.consumers.update(WORK_STREAM.name, DOWNLOAD_CONSUMER, config)
    },
    catch: consumerError("ensure download consumer")
  })
})

export const DownloadWorker = Layer.effectDiscard(Effect.gen(function*() {
  const { js } = yield* NatsClient
  const job = yield* DownloadJob
  const { workerConcurrency } = yield* ExtractorConfig
  yield* ensureDownloadConsumer

  const handle = (m: JsMsg) =>
    decodeCommand(m.string()).pipe(
      Effect.matchEffect({
        onFailure: (error) =>
          Effect.logError("undecodable work message; terminated", { seq: m.seq, message: error.message }).pipe(
            Effect.andThen(Effect.sync(() => m.term("undecodable DownloadMedia")))
          ),
        onSuccess: (command) =>
          job.run(command, { deliveryCount: m.info.deliveryCount, working: () => m.working() }).pipe(
            withMessageSpan("DownloadWorker.handle", m.headers, {
              "mds.job_id": command.jobId,
              "mds.platform": command.platform,
              "messaging.delivery_count": m.info.deliveryCount
            }),
            Effect.flatMap((outcome) =>
              Effect.sync(() => (outcome === "ack" ? m.ack() : m.nak(RETRY_DELAY_MS)))
            )
          )
      })
    )

  // consume() ends when the server or connection drops the pull; it is simply started again.
  const consumeOnce = Effect.gen(function*() {
    const consumer = yield* Effect.tryPromise({
      try: () => js.consumers.get(WORK_STREAM.name, DOWNLOAD_CONSUMER),
      catch: consumerError("get download consumer")
    })
    const messages = yield* Effect.acquireRelease(
      Effect.tryPromise({
        try: () => consumer.consume({ max_messages: workerConcurrency }),
        catch: consumerError("consume downloads")
      }),
      (iterator) => Effect.promise(() => iterator.close().then(() => undefined, () => undefined))
    )
    yield* Stream.fromAsyncIterable(messages, consumerError("download messages")).pipe(
      Stream.mapEffect(handle, { concurrency: workerConcurrency, unordered: true }),
      Stream.runDrain
    )
  }).pipe(Effect.scoped)

  yield* consumeOnce.pipe(
    Effect.catchCause((cause) => Effect.logWarning("download consumer stopped; restarting", cause)),
    Effect.repeat(Schedule.spaced(1000)),
    Effect.forkScoped
  )
  yield* Effect.logInfo("download worker consuming", { consumer: DOWNLOAD_CONSUMER, concurrency: workerConcurrency })
}))
