// Extension: the delivery reactor: a durable consumer of the job events that leave a delivery to do (JobStored, a
// failed attempt's JobDeliveryTried), one attempt per due job (DeliverJob: copy from the store, record the outcome
// through the job's decider, free the slot once the job ended), and a reconcile at start and on a timer over the
// jobs whose last event is one of those. A deliverer killed mid-attempt leaves its message unacknowledged: it is
// delivered again, and the next attempt finds the objects already written.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Clock, Effect, Layer } from "effect"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import type { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { deliverJob } from "@mds/shared/application/job/DeliverJob"
import { DeliveryDestinations } from "@mds/shared/application/job/DeliveryDestinations"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { DestinationWriters } from "@mds/shared/destinations/DestinationWriters"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { leavesDeliveryToDo } from "@mds/shared/domain/job/JobState"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { type JobKey, jobEventWakes, jobsWhoseLatestEvent } from "../reactors/JobEventWakes.ts"
import { Done, later, runReactor } from "../reactors/Reactor.ts"
import { DeliveryConfig } from "./DeliveryConfig.ts"

export const JOB_DELIVERIES_DURABLE = "aggregator-job-deliveries"

const makeJobDeliverer = Effect.gen(function* () {
  const { retryDelaysMs, reconcileMs } = yield* DeliveryConfig
  const services = yield* Effect.context<EventStore | JobStates | DeliveryDestinations | ArtifactStore>()

  const round = Effect.fn("JobDeliverer.round")(function* ({ projectId, jobId }: JobKey, _trigger: "Stored" | "Reconcile") {
    const attempt = yield* deliverJob(projectId, jobId, { retryDelaysMs }).pipe(Effect.provide(services))
    if (attempt._tag === "Waiting") return later(attempt.until - (yield* Clock.currentTimeMillis), "next delivery attempt")
    if (attempt._tag === "Recorded") yield* Effect.logInfo("delivery attempt recorded", { jobId, status: attempt.status })
    return Done
  })

  const stored = jobEventWakes({
    name: "job deliveries",
    durable: JOB_DELIVERIES_DURABLE,
    ackWaitMs: 120_000,
    // Stored jobs from before this consumer existed are the start's reconcile's.
    deliverPolicy: DeliverPolicy.New,
    wakesOn: leavesDeliveryToDo,
    trigger: "Stored" as "Stored" | "Reconcile"
  })
  // Jobs whose last event left a delivery to do: what a lost wake-up (or a deliverer that died) may have left.
  const candidates = jobsWhoseLatestEvent(leavesDeliveryToDo)

  yield* runReactor({
    name: "job deliveries",
    keyOf: ({ projectId, jobId }: JobKey) => jobSubject(projectId, jobId),
    round,
    wakeSources: [stored],
    reconcile: { everyMs: reconcileMs, candidates, trigger: "Reconcile" }
  })
  yield* Effect.logInfo("job deliveries consuming", { retryDelaysMs, reconcileMs })
})

export const JobDeliverer = Layer.effectDiscard(makeJobDeliverer).pipe(
  Layer.provide(
    Layer.mergeAll(JobStates.layer, DeliveryDestinations.layer).pipe(
      Layer.provide(Layer.mergeAll(DestinationAccess.layer, DestinationWriters.layer.pipe(Layer.provide(EgressPolicy.layer))))
    )
  )
)
