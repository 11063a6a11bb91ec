// Extension: the batch process manager: feeds batch entries into the project's job slots as they free.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Config, Effect, Layer, Option, Schema } from "effect"
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
import { Done, Over, runReactor, type WakeSource, type WakeUp } from "../reactors/Reactor.ts"
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

interface BatchKey {
  readonly projectId: string
  readonly batchId: string
}

/** What woke a batch; an ended job also names its entry, so the round looks that entry's job up. */
interface BatchWake {
  readonly _tag: FeedTrigger["_tag"]
  readonly entryId?: string
}

/** `mds.batch.<projectId>.<batchId>` */
const keyOfSubject = (subject: string): BatchKey => {
  const [, , projectId = "", batchId = ""] = subject.split(".")
  return { projectId, batchId }
}

/**
 * A reactor (`reactors/Reactor.ts`): woken by its batch's events, by the end of an entry's job, by any slot of the
 * project freed (every releaser frees it after the job's end, so the end alone may find the project still full), and
 * at start and on a timer for every open batch. A round (`FeedRound.ts`) reads, reacts (`BatchFeed.ts`) and carries
 * out; a batch done with nothing left to do is over, and slot releases and reconciles pass it by.
 */
const makeBatchFeeder = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const jobStates = yield* JobStates
  const { reconcileMs } = yield* BatchFeederConfig

  /** The batches in the stream, of one project or of all. */
  const batchesOf = (projectId: string | null) =>
    Effect.tryPromise(() =>
      jsm.streams.info(BATCHES_STREAM.name, { subjects_filter: projectId === null ? "mds.batch.>" : `mds.batch.${projectId}.*` })
    ).pipe(Effect.map((info) => Object.keys(info.state.subjects ?? {}).map(keyOfSubject)))

  const batchEvents: WakeSource<BatchKey, BatchWake> = {
    stream: BATCHES_STREAM.name,
    durable: BATCH_EVENTS_DURABLE,
    filterSubject: "mds.batch.>",
    lanes: 4,
    ackWaitMs: 30_000,
    wakes: (msg) =>
      Effect.succeed(
        Option.isNone(decodeBatchEvent(msg.string())) ? null : [{ key: keyOfSubject(msg.subject), trigger: { _tag: "BatchRecorded" } }]
      )
  }

  /** An entry's job ended: its batch finishes the entry (the job's state says which batch and entry). */
  const jobEnds: WakeSource<BatchKey, BatchWake> = {
    stream: JOBS_STREAM.name,
    durable: BATCH_JOB_EVENTS_DURABLE,
    filterSubject: "mds.job.>",
    lanes: 4,
    ackWaitMs: 30_000,
    wakes: (msg) => {
      const event = decodeJobEvent(msg.string())
      if (Option.isNone(event) || !endsJob(event.value)) return Effect.succeed([])
      const [, , projectId = "", jobId = ""] = msg.subject.split(".")
      return Effect.map(jobStates.current(projectId, jobId), ({ state }): ReadonlyArray<WakeUp<BatchKey, BatchWake>> => {
        const batch = state?.batch
        return batch === undefined
          ? []
          : [{ key: { projectId, batchId: batch.batchId }, trigger: { _tag: "JobEnded", entryId: batch.entryId } }]
      })
    }
  }

  /** A slot of the project freed: each of its open batches may take it. */
  const freedSlots: WakeSource<BatchKey, BatchWake> = {
    stream: ADMISSION_STREAM.name,
    durable: BATCH_SLOT_EVENTS_DURABLE,
    filterSubject: ADMISSION_STREAM.subjects[0] ?? "mds.admission.>",
    lanes: 4,
    ackWaitMs: 30_000,
    // Releases from before this consumer existed are the start's reconcile's to make up for.
    deliverPolicy: DeliverPolicy.New,
    wakes: (msg) => {
      const event = decodeAdmissionEvent(msg.string())
      if (Option.isNone(event) || event.value._tag !== "SlotReleased") return Effect.succeed([])
      return Effect.map(batchesOf(event.value.projectId), (keys) =>
        keys.map((key) => ({ key, trigger: { _tag: "SlotReleased" }, unlessOver: true }) as const)
      )
    }
  }

  yield* runReactor({
    name: "batch feeder",
    keyOf: ({ projectId, batchId }: BatchKey) => batchSubject(projectId, batchId),
    round: ({ projectId, batchId }: BatchKey, wake: BatchWake) =>
      Effect.map(feedBatch(projectId, batchId, wake._tag, wake.entryId ?? null), (isOver) => (isOver ? Over : Done)),
    wakeSources: [batchEvents, jobEnds, freedSlots],
    reconcile: { everyMs: reconcileMs, candidates: batchesOf(null), trigger: { _tag: "Reconcile" } }
  })
  yield* Effect.logInfo("batch feeder consuming", { reconcileMs })
})

export const BatchFeeder = Layer.effectDiscard(makeBatchFeeder).pipe(
  Layer.provide(Layer.mergeAll(JobStates.layer, ProjectQuotaReader.layer))
)
