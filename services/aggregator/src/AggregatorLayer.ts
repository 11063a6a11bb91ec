// The aggregator's application layer: NATS, streams, the read models, the artifact store for links, all projections.
import { JobDeliverer } from "./deliveries/JobDeliverer.ts"
import { LibraryRefresher } from "./deliveries/LibraryRefresher.ts"
import { SubscriptionRetainer } from "./deliveries/SubscriptionRetainer.ts"
import { Layer } from "effect"
import { ArtifactStoreLayer } from "@mds/shared/artifacts/ArtifactStoreLayer"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { answerFollowerStates } from "@mds/shared/nats/FollowerStates"
import { Followers } from "@mds/shared/nats/Followers"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { ReadModelLayer } from "@mds/shared/readmodel/ReadModelLayer"
import { AccountProjection, accountsProjection, keyUsageProjection } from "./accounts/AccountProjection.ts"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { AggregatorMetrics } from "./metrics/AggregatorMetrics.ts"
import { SubscriptionWebhooks } from "./webhooks/SubscriptionWebhooks.ts"
import { WebhookDispatcher } from "./webhooks/WebhookDispatcher.ts"
import { WebhookSettings } from "./webhooks/WebhookSettings.ts"
import { runProjections } from "./projections/Aggregator.ts"
import { ExpirySweeper } from "./expiry/ExpirySweeper.ts"
import { BatchFeeder } from "./batches/BatchFeeder.ts"
import { SubscriptionChecker } from "./subscriptions/SubscriptionChecker.ts"
import { SubscriptionProjection, subscriptionsProjection } from "./subscriptions/SubscriptionProjection.ts"
import { JobProjection, jobsProjection } from "./jobs/JobProjection.ts"
import { JobRetrier } from "./jobs/JobRetrier.ts"
import { LiveWaiter } from "./live/LiveWaiter.ts"
import { SlotReconcile } from "./admission/SlotReconcile.ts"
import { MediaProjection, mediaProjection } from "./media/MediaProjection.ts"
import { SubjectHistory } from "./projections/SubjectHistory.ts"
import { UsageProjection, usageProjection } from "./usage/UsageProjection.ts"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { Parking } from "./consumers/Parking.ts"
import { ParkedReplays } from "./consumers/ParkedReplays.ts"

/** Every read model the aggregator keeps, as data: stream, durable consumer, decoding and projection. */
export const PROJECTIONS = [
  jobsProjection,
  mediaProjection,
  accountsProjection,
  keyUsageProjection,
  usageProjection,
  subscriptionsProjection
] as const

/** What the projections write with, over whatever read models, ArtifactStore and NatsClient are provided. */
export const ProjectionServices = Layer.mergeAll(
  JobProjection.layer,
  MediaProjection.layer,
  AccountProjection.layer,
  UsageProjection.layer.pipe(Layer.provide(JobStates.layer)),
  SubscriptionProjection.layer
).pipe(Layer.provide(SubjectHistory.layer))

const StreamsEnsured = Layer.effectDiscard(ensureStreams)

// Read models and artifacts: KV and filesystem by default, MongoDB and S3 when MONGO_URL / S3_ENDPOINT are set. Every
// consumer parks a message its handler keeps failing on (Parking: MDS_PARKED).
const Infrastructure = SubscriptionStates.layer.pipe(
  Layer.provideMerge(
    Layer.mergeAll(ReadModelLayer, ArtifactStoreLayer, JetStreamEventStore, StreamsEnsured, Followers.layer, Parking.layer)
  ),
  Layer.provideMerge(Lifetimes.layer),
  Layer.provideMerge(NatsClient.layer)
)

/** Extension: webhook deliveries (jobs' and subscriptions'), beside the projections on the same infrastructure. */
const Webhooks = Layer.mergeAll(WebhookDispatcher, SubscriptionWebhooks).pipe(
  Layer.provide(Layer.mergeAll(WebhookSettings.layer, EgressPolicy.layer, JetStreamEventStore))
)

/** Also exposes the infrastructure services, so in-process tests can read and write what the aggregator sees. */
export const AggregatorLayer = Layer.mergeAll(
  runProjections(PROJECTIONS).pipe(Layer.provide(ProjectionServices)),
  Webhooks,
  AggregatorMetrics,
  ExpirySweeper,
  // Extension: batches' process manager.
  BatchFeeder,
  // Extension: subscriptions' checks, whose new entries go to the batch feeder.
  SubscriptionChecker,
  // Extension: the automatic retries of jobs whose failure was retryable, and the hand-offs of tries that never ran.
  JobRetrier,
  // Extension: scheduled jobs' wait for their stream (probes, the slot once it began, the give-up).
  LiveWaiter,
  // Extension: stored jobs' files delivered into their projects' destinations.
  JobDeliverer,
  // Extension: the media servers of destinations told to refresh their libraries after deliveries.
  LibraryRefresher,
  // Extension: retention of subscriptions' delivered files (keep_last, keep_days).
  SubscriptionRetainer,
  // The slots of tries whose releaser died, freed on a timer.
  SlotReconcile,
  // The expiry and tally followers' states, for the gateways' /v1/health.
  answerFollowerStates("aggregator"),
  // An operator's replays of parked messages, run by the handlers registered above.
  ParkedReplays
).pipe(Layer.provide(SubjectHistory.layer), Layer.provideMerge(Infrastructure))
