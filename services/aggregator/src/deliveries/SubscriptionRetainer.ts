// Extension: the retention reactor: a subscription with a retention rule has a round (retainSubscription) each time one
// of its jobs is delivered (JobDelivered: keep_last may be passed), and a reconcile at start and on the delivery
// reconcile timer over every subscription (keep_days passes with time alone; a lost wake-up is caught up).
import { DeliverPolicy } from "@nats-io/jetstream"
import { Effect, Layer, Option } from "effect"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import { DeliveryDestinations } from "@mds/shared/application/job/DeliveryDestinations"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { retainSubscription } from "@mds/shared/application/job/RetainDeliveries"
import type { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { DestinationWriters } from "@mds/shared/destinations/DestinationWriters"
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { JOBS_STREAM, jobSubject, subscriptionSubject } from "@mds/shared/nats/Subjects"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { listSubjects } from "@mds/shared/nats/SubjectListing"
import { Done, runReactor, type WakeSource } from "../reactors/Reactor.ts"
import { DeliveryConfig } from "./DeliveryConfig.ts"

export const SUBSCRIPTION_RETENTION_DURABLE = "aggregator-subscription-retention"

/** What woke a round: one of its jobs delivered, or the reconcile. */
type Trigger = { readonly _tag: "Delivered"; readonly jobId: string } | { readonly _tag: "Reconcile" }

interface SubscriptionKey {
  readonly projectId: string
  readonly subscriptionId: string
}

const makeSubscriptionRetainer = Effect.gen(function* () {
  const { reconcileMs } = yield* DeliveryConfig
  const jobStates = yield* JobStates
  const services = yield* Effect.context<JobStates | DeliveryDestinations | SubscriptionStates>()

  const round = Effect.fn("SubscriptionRetainer.round")(function* ({ projectId, subscriptionId }: SubscriptionKey, trigger: Trigger) {
    // A delivery names its job: the one new entry of the library. A reconcile looks at every job the service still
    // keeps of the project (a wake-up lost, an aggregator that was down), only the subscription's delivered ones taken.
    const jobIds =
      trigger._tag === "Delivered"
        ? [trigger.jobId]
        : (yield* listSubjects(jobSubject)).filter((job) => job.projectId === projectId).map((job) => job.jobId)
    const { removed, failed } = yield* retainSubscription(projectId, subscriptionId, jobIds).pipe(Effect.provide(services))
    if (removed.length > 0 || failed.length > 0) yield* Effect.logInfo("retention round", { subscriptionId, removed, failed })
    return Done
  })

  const delivered: WakeSource<SubscriptionKey, Trigger> = {
    stream: JOBS_STREAM.name,
    durable: SUBSCRIPTION_RETENTION_DURABLE,
    filterSubject: jobSubject.all,
    lanes: 2,
    ackWaitMs: 120_000,
    deliverPolicy: DeliverPolicy.New,
    wakes: (msg) =>
      Effect.gen(function* () {
        const event = decodeJobEventJson(msg.string())
        if (Option.isNone(event) || event.value._tag !== "JobDelivered") return []
        const key = jobSubject.parse(msg.subject)
        if (Option.isNone(key)) return yield* Effect.as(stepOverSubject("subscription retention", msg.subject), [])
        const { state } = yield* jobStates.current(key.value.projectId, key.value.jobId)
        const subscriptionId = state?.options?.delivery?.library?.subscriptionId
        return subscriptionId === undefined
          ? []
          : [{ key: { projectId: key.value.projectId, subscriptionId }, trigger: { _tag: "Delivered", jobId: key.value.jobId } }]
      })
  }

  yield* runReactor({
    name: "subscription retention",
    keyOf: ({ projectId, subscriptionId }: SubscriptionKey) => subscriptionSubject(projectId, subscriptionId),
    round,
    wakeSources: [delivered],
    reconcile: { everyMs: reconcileMs, candidates: listSubjects(subscriptionSubject), trigger: { _tag: "Reconcile" } }
  })
  yield* Effect.logInfo("subscription retention consuming", { reconcileMs })
})

export const SubscriptionRetainer = Layer.effectDiscard(makeSubscriptionRetainer).pipe(
  Layer.provide(
    Layer.mergeAll(JobStates.layer, DeliveryDestinations.layer).pipe(
      Layer.provide(Layer.mergeAll(DestinationAccess.layer, DestinationWriters.layer.pipe(Layer.provide(EgressPolicy.layer))))
    )
  )
)
