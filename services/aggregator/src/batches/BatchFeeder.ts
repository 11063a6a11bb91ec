// Extension: the batch process manager: feeds batch entries into the project's job slots as they free.
import { DeliverPolicy, type JsMsg } from "@nats-io/jetstream"
import { Config, Effect, Layer, Option, Schedule, Schema, Semaphore } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import type { FeedTrigger } from "@mds/shared/domain/batch/BatchFeed"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { endsJob } from "@mds/shared/domain/job/JobState"
import { ADMISSION_STREAM, BATCHES_STREAM, batchSubject, JOBS_STREAM } from "@mds/shared/eventstore/Subjects"
import { JobStates } from "@mds/shared/jobs/JobStates"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer, type Verdict } from "../consumers/DurableConsumer.ts"
import { feedBatch } from "./FeedRound.ts"

export const BATCH_EVENTS_DURABLE = "aggregator-batches"
export const BATCH_JOB_EVENTS_DURABLE = "aggregator-batch-jobs"
export const BATCH_SLOT_EVENTS_DURABLE = "aggregator-batch-slots"

export const BatchFeederConfig = Config.all({
  /** How often every open batch is looked at again, for what no event announced (its end) or a lost wake-up hid. */
  reconcileMs: secondsAsMs("BATCH_RECONCILE_INTERVAL_SECONDS", 30)
})

const decodeBatchEvent = Schema.decodeUnknownOption(Schema.fromJsonString(BatchEvent))
const decodeJobEvent = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))
const decodeAdmissionEvent = Schema.decodeUnknownOption(Schema.fromJsonString(AdmissionEvent))
const ack: Verdict = { _tag: "Ack" }
const retryLater = (cause: unknown): Verdict => ({ _tag: "Nak", delayMs: 1_000, reason: String(cause) })

/** `mds.batch.<projectId>.<batchId>` */
const idsOf = (subject: string) => {
  const [, , projectId = "", batchId = ""] = subject.split(".")
  return { projectId, batchId }
}

/**
 * A reactor (a durable consumer of what it needs, a pure `react`, idempotent commands, a reconcile): woken by its
 * batch's events, by the end of an entry's job, by any slot of the project freed (every releaser frees it after the
 * job's end, so the end alone may find the project still full), and at start and on a timer for every open batch.
 */
const makeBatchFeeder = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const jobStates = yield* JobStates
  const { reconcileMs } = yield* BatchFeederConfig
  const context = yield* Effect.context<Effect.Services<ReturnType<typeof feedBatch>>>()
  /** Batches over for good, passed by on slot releases and reconciles (their own events still wake them). */
  const over = new Set<string>()
  /** One wake-up at a time per batch: two rounds racing would only do twice what repeats as nothing, but cost reads. */
  const locks = new Map<string, Semaphore.Semaphore>()

  const wake = (projectId: string, batchId: string, trigger: FeedTrigger["_tag"], entryId: string | null = null) => {
    const subject = batchSubject(projectId, batchId)
    let lock = locks.get(subject)
    if (lock === undefined) {
      lock = Semaphore.makeUnsafe(1)
      locks.set(subject, lock)
    }
    return feedBatch(projectId, batchId, trigger, entryId).pipe(
      Effect.tap((isOver) =>
        Effect.sync(() => {
          if (!isOver) return
          over.add(subject)
          locks.delete(subject)
        })
      ),
      lock.withPermits(1),
      Effect.provideContext(context)
    )
  }

  /** The open batches' ids, of one project or of all. */
  const openBatches = (projectId: string | null) =>
    Effect.tryPromise(() =>
      jsm.streams.info(BATCHES_STREAM.name, { subjects_filter: projectId === null ? "mds.batch.>" : `mds.batch.${projectId}.*` })
    ).pipe(Effect.map((info) => Object.keys(info.state.subjects ?? {}).filter((subject) => !over.has(subject))))

  const wakeAll = (projectId: string | null, trigger: FeedTrigger["_tag"]) =>
    Effect.flatMap(openBatches(projectId), (subjects) =>
      Effect.forEach(
        subjects,
        (subject) => {
          const ids = idsOf(subject)
          return wake(ids.projectId, ids.batchId, trigger)
        },
        { discard: true }
      )
    )

  const onBatchEvent = (msg: JsMsg): Effect.Effect<Verdict> => {
    if (Option.isNone(decodeBatchEvent(msg.string()))) return Effect.succeed({ _tag: "Term", reason: "undecodable batch event" })
    const { projectId, batchId } = idsOf(msg.subject)
    return wake(projectId, batchId, "BatchRecorded").pipe(
      Effect.as(ack),
      Effect.catchCause((cause) => Effect.succeed(retryLater(cause)))
    )
  }

  /** An entry's job ended: its batch finishes the entry (the job's state says which batch and entry). */
  const onJobEvent = (msg: JsMsg): Effect.Effect<Verdict> => {
    const event = decodeJobEvent(msg.string())
    if (Option.isNone(event) || !endsJob(event.value)) return Effect.succeed(ack)
    const [, , projectId = "", jobId = ""] = msg.subject.split(".")
    return Effect.gen(function* () {
      const { state } = yield* jobStates.current(projectId, jobId)
      const batch = state?.batch
      if (batch !== undefined) yield* wake(projectId, batch.batchId, "JobEnded", batch.entryId)
      return ack
    }).pipe(Effect.catchCause((cause) => Effect.succeed(retryLater(cause))))
  }

  /** A slot of the project freed: each of its open batches may take it. */
  const onAdmissionEvent = (msg: JsMsg): Effect.Effect<Verdict> => {
    const event = decodeAdmissionEvent(msg.string())
    if (Option.isNone(event) || event.value._tag !== "SlotReleased") return Effect.succeed(ack)
    return wakeAll(event.value.projectId, "SlotReleased").pipe(
      Effect.as(ack),
      Effect.catchCause((cause) => Effect.succeed(retryLater(cause)))
    )
  }

  const consumers: ReadonlyArray<DurableConsumerOptions> = [
    {
      stream: BATCHES_STREAM.name,
      durable: BATCH_EVENTS_DURABLE,
      filterSubject: "mds.batch.>",
      lanes: 4,
      ackWaitMs: 30_000,
      handle: onBatchEvent
    },
    {
      stream: JOBS_STREAM.name,
      durable: BATCH_JOB_EVENTS_DURABLE,
      filterSubject: "mds.job.>",
      lanes: 4,
      ackWaitMs: 30_000,
      handle: onJobEvent
    },
    {
      stream: ADMISSION_STREAM.name,
      durable: BATCH_SLOT_EVENTS_DURABLE,
      filterSubject: ADMISSION_STREAM.subjects[0] ?? "mds.admission.>",
      lanes: 4,
      ackWaitMs: 30_000,
      // Releases from before this consumer existed are the start's reconcile's to make up for.
      deliverPolicy: DeliverPolicy.New,
      handle: onAdmissionEvent
    }
  ]
  for (const consumer of consumers) yield* ensureDurableConsumer(consumer)
  for (const consumer of consumers) yield* Effect.forkScoped(runDurableConsumer(consumer))

  const reconcile = wakeAll(null, "Reconcile").pipe(
    Effect.catchCause((cause) => Effect.logWarning("batch reconcile failed; tried again next time", cause))
  )
  yield* reconcile.pipe(Effect.repeat(Schedule.spaced(reconcileMs)), Effect.forkScoped)
  yield* Effect.logInfo("batch feeder consuming", { reconcileMs })
})

export const BatchFeeder = Layer.effectDiscard(makeBatchFeeder).pipe(
  Layer.provide(Layer.mergeAll(JobStates.layer, ProjectQuotaReader.layer))
)
