// The durable pull consumer "extractor" on the work queue: takes DownloadMedia commands, WORKER_CONCURRENCY at a time.
import { AckPolicy, JetStreamApiCodes, type Consumer, type JsMsg } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { Effect, Exit, Layer, Option, Schema, Scope, Semaphore } from "effect"
import { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { EventStoreError } from "@mds/shared/eventstore/EventStore"
import { DOWNLOAD_WORK_SUBJECT, downloadWorkSubject, WORK_STREAM } from "@mds/shared/nats/Subjects"
import { nullWhenNotFound, untilSettled } from "@mds/shared/nats/ClusterSettling"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { withMessageSpan } from "@mds/shared/nats/TraceContext"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { PlatformPacing } from "../pacing/PlatformPacing.ts"
import { DownloadJob } from "./DownloadJob.ts"
import { FragmentConcurrency } from "./FragmentConcurrency.ts"
import type { DownloadOutcome } from "./WorkDelivery.ts"

export const DOWNLOAD_CONSUMER = "extractor"
const RETRY_DELAY_MS = 5_000
/**
 * How long one pull waits for work before it is renewed. Short, because a pull left pending on a consumer leader that
 * died is never answered: with replicated streams a new leader takes over, and the next pull reaches it.
 */
const PULL_EXPIRES_MS = 5_000

const decodeCommand = Schema.decodeUnknownEffect(Schema.fromJsonString(DownloadMedia))

const consumerError = (operation: string) => (cause: unknown) =>
  new EventStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

/**
 * Creates the consumer, or brings an existing one to this configuration. Deliveries are not limited: a job waiting
 * for its platform's pacing is handed back (nak) as often as it must. Runs are: a delivery after WORK_MAX_ATTEMPTS
 * started runs only records the job as failed (attempts_exhausted, StartRun), so a job that keeps killing its
 * workers ends instead of waiting out its lifetime.
 */
export const ensureDownloadConsumer = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const { workAckWaitMs } = yield* ExtractorConfig
  const config = {
    durable_name: DOWNLOAD_CONSUMER,
    // Each job's messages on a subject of its own, and those sent before jobs had one.
    filter_subjects: [downloadWorkSubject.all, DOWNLOAD_WORK_SUBJECT],
    ack_policy: AckPolicy.Explicit,
    ack_wait: nanos(workAckWaitMs),
    max_deliver: -1
  }
  // Safe to repeat: a consumer a timed-out request created is found and updated the next time.
  yield* untilSettled(async () => {
    const existing = await jsm.consumers
      .info(WORK_STREAM.name, DOWNLOAD_CONSUMER)
      .catch(nullWhenNotFound(JetStreamApiCodes.ConsumerNotFound))
    if (existing === null) await jsm.consumers.add(WORK_STREAM.name, config)
    else await jsm.consumers.update(WORK_STREAM.name, DOWNLOAD_CONSUMER, config)
  }).pipe(Effect.mapError(consumerError("ensure download consumer")))
})

/**
 * A message is pulled only when a slot is free: a prefetched message would wait without heartbeats, be handed to
 * another worker after the ack wait, and then run twice. Jobs run in a scope of their own, not the pull loop's, so a
 * broken pull (NATS restarting) never interrupts them; on shutdown they are interrupted and handed back (nak).
 */
export const DownloadWorker = Layer.effectDiscard(
  Effect.gen(function* () {
    const { js } = yield* NatsClient
    const job = yield* DownloadJob
    const pacing = yield* PlatformPacing
    const fragments = yield* FragmentConcurrency
    const { workerConcurrency } = yield* ExtractorConfig
    yield* ensureDownloadConsumer
    const slots = yield* Semaphore.make(workerConcurrency)
    // Jobs live in their own scope, closed after the pull loop (finalizers run in reverse): on shutdown no new work is
    // taken while the running jobs are being handed back.
    const scope = yield* Scope.make()
    yield* Effect.addFinalizer(() => Scope.close(scope, Exit.void))

    const handle = (m: JsMsg) =>
      decodeCommand(m.string()).pipe(
        Effect.matchEffect({
          onFailure: (error) =>
            Effect.logError("undecodable work message; terminated", { seq: m.seq, message: error.message }).pipe(
              // No reason argument: nats-server 2.9 does not understand "+TERM <reason>" and would redeliver forever.
              Effect.andThen(Effect.sync(() => m.term()))
            ),
          onSuccess: (command) =>
            Effect.gen(function* () {
              // The connections first: a job that finds none free has not yet used up one of the platform's starts.
              const concurrentFragments = yield* pacing.connections(
                command.platform,
                command.jobId,
                fragments.forPlatform(command.platform)
              )
              // Over its platform's fleet-wide limit the job stays queued: handed back to be offered again later.
              const paced = concurrentFragments === 0 ? Option.none() : yield* pacing.admit(command.platform, command.jobId)
              if (Option.isNone(paced)) {
                yield* Effect.logDebug("platform at its pacing limit; job waits", { jobId: command.jobId, platform: command.platform })
                return yield* Effect.sync(() => m.nak(pacing.retryDelayMs))
              }
              // A run whose lease was lost for good stops (killing yt-dlp): another run may hold the key by now.
              const outcome = yield* job
                .run(command, { workSeq: m.seq, deliveryCount: m.info.deliveryCount, working: () => m.working(), concurrentFragments })
                .pipe(Effect.raceFirst(paced.value.lost.pipe(Effect.as<DownloadOutcome>("retry"))))
              // A run a later delivery took over leaves the message alone: it is that run's to acknowledge.
              if (outcome !== "abandon") yield* Effect.sync(() => (outcome === "ack" ? m.ack() : m.nak(RETRY_DELAY_MS)))
            }).pipe(
              Effect.scoped,
              withMessageSpan("DownloadWorker.handle", m.headers, {
                "mds.job_id": command.jobId,
                "mds.platform": command.platform,
                "messaging.delivery_count": m.info.deliveryCount
              }),
              // Shutting down (SIGTERM): the job is handed back at once for another worker instead of after the ack wait.
              Effect.onInterrupt(() =>
                Effect.logInfo("shutting down; job handed back", { jobId: command.jobId }).pipe(Effect.andThen(Effect.sync(() => m.nak())))
              )
            )
        }),
        Effect.ensuring(Semaphore.release(slots, 1))
      )

    let consumer: Consumer | null = null
    const pullOne = Effect.gen(function* () {
      const current =
        consumer ??
        (yield* Effect.tryPromise({
          try: () => js.consumers.get(WORK_STREAM.name, DOWNLOAD_CONSUMER),
          catch: consumerError("get download consumer")
        }))
      consumer = current
      return yield* Effect.tryPromise({
        try: async () => {
          const received: Array<JsMsg> = []
          for await (const m of await current.fetch({ max_messages: 1, expires: PULL_EXPIRES_MS })) received.push(m)
          return received
        },
        catch: consumerError("fetch download")
      }).pipe(Effect.tapError(() => Effect.sync(() => (consumer = null))))
    })

    const takeWork = Effect.gen(function* () {
      yield* Semaphore.take(slots, 1)
      const received = yield* pullOne.pipe(Effect.onError(() => Semaphore.release(slots, 1)))
      if (received.length === 0) return yield* Semaphore.release(slots, 1)
      for (const m of received) yield* Effect.forkIn(handle(m), scope)
    })

    yield* takeWork.pipe(
      Effect.catchCause((cause) =>
        Effect.logWarning("pulling work failed; retrying", cause).pipe(Effect.andThen(Effect.sleep("1 second")))
      ),
      Effect.forever,
      Effect.forkScoped
    )
    yield* Effect.logInfo("download worker consuming", { consumer: DOWNLOAD_CONSUMER, concurrency: workerConcurrency })
  })
)
