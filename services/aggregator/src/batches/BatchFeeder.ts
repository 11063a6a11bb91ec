// Extension: the batch process manager: feeds batch entries into the project's job slots as they free.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Config, Effect, Layer, Option, Schema } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { AdmissionEvent, freesSlot } from "@mds/shared/domain/admission/AdmissionEvent"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import type { FeedTrigger } from "@mds/shared/domain/batch/BatchFeed"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { endsJob, reopensJob } from "@mds/shared/domain/job/JobState"
import {
  ADMISSION_STREAM,
  admissionSubject,
  BATCHES_STREAM,
  batchSubject,
  JOBS_STREAM,
  jobSubject,
  SUBSCRIPTIONS_STREAM,
  subscriptionSubject
} from "@mds/shared/nats/Subjects"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { listSubjects } from "@mds/shared/nats/SubjectListing"
import { Done, Over, runReactor, type WakeSource, type WakeUp } from "../reactors/Reactor.ts"
import { feedBatch } from "./FeedRound.ts"

export const BATCH_EVENTS_DURABLE = "aggregator-batches"
export const BATCH_JOB_EVENTS_DURABLE = "aggregator-batch-jobs"
export const BATCH_SLOT_EVENTS_DURABLE = "aggregator-batch-slots"
export const BATCH_SUBSCRIPTION_EVENTS_DURABLE = "aggregator-batch-subscriptions"

export const BatchFeederConfig = Config.all({
  /** How often every open batch is looked at again, for what no event announced (its end) or a lost wake-up hid. */
  reconcileMs: secondsAsMs("BATCH_RECONCILE_INTERVAL_SECONDS", 30)
})

const decodeBatchEvent = Schema.decodeUnknownOption(Schema.fromJsonString(BatchEvent))
const decodeJobEvent = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))
const decodeAdmissionEvent = Schema.decodeUnknownOption(Schema.fromJsonString(AdmissionEvent))
const decodeSubscriptionEvent = Schema.decodeUnknownOption(Schema.fromJsonString(SubscriptionEvent))

interface BatchKey {
  readonly projectId: string
  readonly batchId: string
}

/** What woke a batch; an ended job also names its entry, so the round looks that entry's job up. */
interface BatchWake {
  readonly _tag: FeedTrigger["_tag"]
  readonly entryId?: string
}

/**
 * A reactor (`reactors/Reactor.ts`): woken by its batch's events, by the end of an entry's job, by any slot of the
 * project freed (every releaser frees it after the job's end, so the end alone may find the project still full), by
 * its subscription's record, pause, resume or removal (a subscription's batch), and at start and on a timer for every
 * open batch. A round (`FeedRound.ts`) reads, reacts (`BatchFeed.ts`) and carries
 * out; a batch done with nothing left to do is over, and slot releases and reconciles pass it by.
 */
const makeBatchFeeder = Effect.gen(function* () {
  const nats = yield* NatsClient
  const jobStates = yield* JobStates
  const subscriptionStates = yield* SubscriptionStates
  const { reconcileMs } = yield* BatchFeederConfig

  /** The batches in the stream, of one project or of all. */
  const batchesOf = (projectId: string | null) =>
    listSubjects(batchSubject, projectId === null ? batchSubject.all : batchSubject.within(projectId)).pipe(
      Effect.provideService(NatsClient, nats)
    )

  const batchEvents: WakeSource<BatchKey, BatchWake> = {
    stream: BATCHES_STREAM.name,
    durable: BATCH_EVENTS_DURABLE,
    filterSubject: batchSubject.all,
    lanes: 4,
    ackWaitMs: 30_000,
    wakes: (msg) => {
      if (Option.isNone(decodeBatchEvent(msg.string()))) return Effect.succeed(null)
      const key = batchSubject.parse(msg.subject)
      if (Option.isNone(key)) return Effect.as(stepOverSubject("batch feeder", msg.subject), [])
      return Effect.succeed([{ key: key.value, trigger: { _tag: "BatchRecorded" } }])
    }
  }

  /** An entry's job ended, or was retried: its batch finishes or reopens the entry (the job's state says which). */
  const jobEnds: WakeSource<BatchKey, BatchWake> = {
    stream: JOBS_STREAM.name,
    durable: BATCH_JOB_EVENTS_DURABLE,
    filterSubject: jobSubject.all,
    lanes: 4,
    ackWaitMs: 30_000,
    wakes: (msg) => {
      const event = decodeJobEvent(msg.string())
      // A retry of a finished entry's job reopens the entry (its batch may have read done meanwhile).
      const retried = Option.isSome(event) && reopensJob(event.value)
      if (Option.isNone(event) || !(endsJob(event.value) || retried)) return Effect.succeed([])
      const job = jobSubject.parse(msg.subject)
      if (Option.isNone(job)) return Effect.as(stepOverSubject("batch feeder", msg.subject), [])
      const { projectId, jobId } = job.value
      return Effect.map(jobStates.current(projectId, jobId), ({ state }): ReadonlyArray<WakeUp<BatchKey, BatchWake>> => {
        const batch = state?.batch
        return batch === undefined
          ? []
          : [{ key: { projectId, batchId: batch.batchId }, trigger: { _tag: retried ? "JobRetried" : "JobEnded", entryId: batch.entryId } }]
      })
    }
  }

  /** A slot of the project freed: each of its open batches may take it. */
  const freedSlots: WakeSource<BatchKey, BatchWake> = {
    stream: ADMISSION_STREAM.name,
    durable: BATCH_SLOT_EVENTS_DURABLE,
    filterSubject: admissionSubject.all,
    lanes: 4,
    ackWaitMs: 30_000,
    // Releases from before this consumer existed are the start's reconcile's to make up for.
    deliverPolicy: DeliverPolicy.New,
    wakes: (msg) => {
      const event = decodeAdmissionEvent(msg.string())
      if (Option.isNone(event) || !freesSlot(event.value)) return Effect.succeed([])
      return Effect.map(batchesOf(event.value.projectId), (keys) =>
        keys.map((key) => ({ key, trigger: { _tag: "SlotReleased" }, unlessOver: true }) as const)
      )
    }
  }

  /**
   * A subscription recorded its check's batch (its entries may start now), or was paused, resumed or removed: the
   * batches of its entries in flight look at what it lets (`SubscriptionBatches.ts`).
   */
  const subscriptionChanges: WakeSource<BatchKey, BatchWake> = {
    stream: SUBSCRIPTIONS_STREAM.name,
    durable: BATCH_SUBSCRIPTION_EVENTS_DURABLE,
    filterSubject: subscriptionSubject.all,
    lanes: 4,
    ackWaitMs: 30_000,
    // Changes from before this consumer existed are the start's reconcile's to make up for.
    deliverPolicy: DeliverPolicy.New,
    wakes: (msg) => {
      const event = decodeSubscriptionEvent(msg.string())
      if (Option.isNone(event)) return Effect.succeed([])
      const subscription = subscriptionSubject.parse(msg.subject)
      if (Option.isNone(subscription)) return Effect.as(stepOverSubject("batch feeder", msg.subject), [])
      const { projectId, subscriptionId } = subscription.value
      const woken = (batchIds: ReadonlyArray<string>): ReadonlyArray<WakeUp<BatchKey, BatchWake>> =>
        [...new Set(batchIds)].map((batchId) => ({ key: { projectId, batchId }, trigger: { _tag: "BatchRecorded" } }))
      switch (event.value._tag) {
        case "SubscriptionEntriesQueued":
          return Effect.succeed(woken([event.value.batchId]))
        case "SubscriptionPaused":
        case "SubscriptionResumed":
        case "SubscriptionRemoved":
          return Effect.map(subscriptionStates.current(projectId, subscriptionId), ({ state }) =>
            woken((state?.entries ?? []).flatMap((entry) => (entry.batchId === null ? [] : [entry.batchId])))
          )
        default:
          return Effect.succeed([])
      }
    }
  }

  yield* runReactor({
    name: "batch feeder",
    keyOf: ({ projectId, batchId }: BatchKey) => batchSubject(projectId, batchId),
    round: ({ projectId, batchId }: BatchKey, wake: BatchWake) =>
      Effect.map(feedBatch(projectId, batchId, wake._tag, wake.entryId ?? null), (isOver) => (isOver ? Over : Done)),
    wakeSources: [batchEvents, jobEnds, freedSlots, subscriptionChanges],
    reconcile: { everyMs: reconcileMs, candidates: batchesOf(null), trigger: { _tag: "Reconcile" } }
  })
  yield* Effect.logInfo("batch feeder consuming", { reconcileMs })
})

export const BatchFeeder = Layer.effectDiscard(makeBatchFeeder).pipe(
  Layer.provide(Layer.mergeAll(JobStates.layer, ProjectQuotaReader.layer))
)
