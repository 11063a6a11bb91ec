// Extension: the batch process manager: feeds batch entries into the project's job slots as they free, from events only.
import type { JsMsg } from "@nats-io/jetstream"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { claimSlot, releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { batchCommands } from "@mds/shared/domain/batch/BatchCommands"
import { BatchDecider, nextEntries } from "@mds/shared/domain/batch/BatchDecider"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { progressOf } from "@mds/shared/domain/batch/BatchState"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { BATCHES_STREAM, batchSubject, JOBS_STREAM, jobSubject, projectBatchesSubject } from "@mds/shared/eventstore/Subjects"
import { derivedId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer, type Verdict } from "../consumers/DurableConsumer.ts"

export const BATCH_EVENTS_DURABLE = "aggregator-batches"
export const BATCH_JOB_EVENTS_DURABLE = "aggregator-batch-jobs"

const decodeBatchEvent = Schema.decodeUnknownOption(Schema.fromJsonString(BatchEvent))
const decodeJobEvent = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))
const ack: Verdict = { _tag: "Ack" }

/** The job of a batch entry: the same id however often the entry is fed, so a repeated feed queues nothing twice. */
export const entryJobId = (batchId: string, entryId: string) => derivedId("job", `${batchId}:${entryId}`)

const terminalOutcome = (event: JobEvent): "completed" | "failed" | null => {
  switch (event._tag) {
    case "JobCompleted":
      return "completed"
    case "JobFailed":
    case "JobExpired":
    case "JobCanceled":
      return "failed"
    default:
      return null
  }
}

export const BatchFeeder = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* EventStore
    const lifetimes = yield* Lifetimes
    const { jsm } = yield* NatsClient
    const provide = Effect.provideService(EventStore, store)

    const loadBatch = (projectId: string, batchId: string) =>
      store.readSubject(BatchEvent, batchSubject(projectId, batchId)).pipe(
        Effect.map((stored) => ({
          state: stored.reduce((state, item) => BatchDecider.evolve(state, item.event), BatchDecider.initialState()),
          created: stored.find((item) => item.event._tag === "BatchCreated")?.event
        }))
      )

    /** Queues pending entries while the project has free slots; cancels the running entries of a canceled batch. */
    const feed = Effect.fn("BatchFeeder.feed")(function* (projectId: string, batchId: string) {
      const { state, created } = yield* loadBatch(projectId, batchId)
      if (created === undefined || created._tag !== "BatchCreated") return
      const now = yield* Clock.currentTimeMillis
      if (state.status === "canceled") {
        for (const entry of state.entries) {
          const progress = progressOf(state, entry.entryId)
          if (progress._tag !== "Queued") continue
          const canceled = yield* jobCommands(
            projectId,
            progress.jobId
          )({ _tag: "CancelJob", jobId: progress.jobId, now }).pipe(
            Effect.map((handled) => handled.state),
            Effect.orElseSucceed(() => null)
          )
          // A job a worker had started keeps its slot until that worker stopped the run (slotReleaseOf).
          const reason = slotReleaseOf(canceled)
          if (reason !== null) yield* releaseSlot(projectId, progress.jobId, reason)
        }
        return
      }
      for (const entry of nextEntries(state, Number.MAX_SAFE_INTEGER, now)) {
        const jobId = entryJobId(batchId, entry.entryId)
        const claimed = yield* claimSlot({
          projectId,
          jobId,
          limit: lifetimes.maxConcurrentJobs,
          now,
          expiresAt: now + lifetimes.jobMs
        }).pipe(
          Effect.as(true),
          Effect.catchTag("ConcurrencyLimitExceeded", () => Effect.succeed(false))
        )
        // The project is full: the next job that ends (a job event) feeds the batch again.
        if (!claimed) return
        const job: QueuedJob = {
          jobId,
          projectId,
          platform: created.platform,
          format: created.format,
          source: { url: entry.url, mediaId: null },
          now,
          lifetimeMs: lifetimes.jobMs,
          ...(created.options === undefined ? {} : { options: created.options }),
          batch: { batchId, entryId: entry.entryId }
        }
        // Fed again (a redelivered batch event): the job is queued already, and its work message is deduplicated.
        yield* queueJob(job).pipe(Effect.catchTag("JobAlreadyExists", () => Effect.void))
        yield* sendDownloadWork(job)
        yield* batchCommands(projectId, batchId)({ _tag: "RecordEntryQueued", batchId, entryId: entry.entryId, jobId, now })
      }
    }, provide)

    /** The project's batches (their subjects), to feed when one of its slots frees. */
    const batchesOf = (projectId: string) =>
      Effect.tryPromise(() => jsm.streams.info(BATCHES_STREAM.name, { subjects_filter: projectBatchesSubject(projectId) })).pipe(
        Effect.map((info) =>
          Object.keys(info.state.subjects ?? {})
            .map((subject) => subject.split(".")[3] ?? "")
            .filter((id) => id !== "")
        ),
        Effect.orElseSucceed(() => [] as Array<string>)
      )

    const onBatchEvent = (msg: JsMsg): Effect.Effect<Verdict> => {
      const event = decodeBatchEvent(msg.string())
      if (Option.isNone(event)) return Effect.succeed({ _tag: "Term", reason: "undecodable batch event" })
      const [, , projectId = ""] = msg.subject.split(".")
      if (event.value._tag !== "BatchCreated" && event.value._tag !== "BatchCanceled") return Effect.succeed(ack)
      return feed(projectId, event.value.batchId).pipe(
        Effect.as(ack),
        Effect.catchCause((cause) => Effect.succeed<Verdict>({ _tag: "Nak", delayMs: 1_000, reason: String(cause) }))
      )
    }

    /** A job ended: its entry (if a batch queued it) is finished, and a slot of its project is free for every batch. */
    const onJobEvent = (msg: JsMsg): Effect.Effect<Verdict> => {
      const event = decodeJobEvent(msg.string())
      if (Option.isNone(event)) return Effect.succeed(ack)
      const outcome = terminalOutcome(event.value)
      if (outcome === null) return Effect.succeed(ack)
      const [, , projectId = "", jobId = ""] = msg.subject.split(".")
      return Effect.gen(function* () {
        const events = yield* store.readSubject(JobEvent, jobSubject(projectId, jobId))
        const queued = events.find((item) => item.event._tag === "JobQueued")?.event
        const batch = queued?._tag === "JobQueued" ? queued.batch : undefined
        const now = yield* Clock.currentTimeMillis
        if (batch !== undefined) {
          yield* batchCommands(
            projectId,
            batch.batchId
          )({ _tag: "RecordEntryFinished", batchId: batch.batchId, jobId, outcome, now }).pipe(
            Effect.catchTag("BatchNotFound", () => Effect.void),
            provide
          )
        }
        for (const batchId of yield* batchesOf(projectId)) yield* feed(projectId, batchId)
        return ack
      }).pipe(Effect.catchCause((cause) => Effect.succeed<Verdict>({ _tag: "Nak", delayMs: 1_000, reason: String(cause) })))
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
      }
    ]
    for (const consumer of consumers) yield* ensureDurableConsumer(consumer)
    for (const consumer of consumers) yield* Effect.forkScoped(runDurableConsumer(consumer))
    yield* Effect.logInfo("batch feeder consuming")
  })
)
