// The aggregator's application layer: NATS, streams, the read models, the artifact store for links, all projections.
import { Layer } from "effect"
import { ArtifactStoreLayer } from "@mds/shared/artifacts/ArtifactStoreLayer"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { ReadModelLayer } from "@mds/shared/readmodel/ReadModelLayer"
import { accountAggregatorWith } from "./accounts/AccountAggregator.ts"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { AggregatorMetrics } from "./metrics/AggregatorMetrics.ts"
import { WebhookDispatcher } from "./webhooks/WebhookDispatcher.ts"
import { WebhookSettings } from "./webhooks/WebhookSettings.ts"
import { type AggregatorOptions, defaultAggregatorOptions, makeAggregator } from "./projections/Aggregator.ts"
import { ExpirySweeper } from "./expiry/ExpirySweeper.ts"
import { JobProjection } from "./jobs/JobProjection.ts"
import { MediaProjection } from "./media/MediaProjection.ts"
import { SubjectHistory } from "./projections/SubjectHistory.ts"

/** The projections over whatever JobReadModel, MediaReadModel, ArtifactStore and NatsClient are provided. */
export const Projections = Layer.mergeAll(JobProjection.layer, MediaProjection.layer).pipe(
  Layer.provide(SubjectHistory.layer)
)

/** Consumers plus projections; needs NatsClient, the read models and the ArtifactStore. */
export const aggregatorWith = (options: AggregatorOptions = defaultAggregatorOptions) =>
  makeAggregator(options).pipe(Layer.provide(Projections))

const StreamsEnsured = Layer.effectDiscard(ensureStreams)

// Read models and artifacts: KV and filesystem by default, MongoDB and S3 when MONGO_URL / S3_ENDPOINT are set.
const Infrastructure = Layer.mergeAll(
  ReadModelLayer,
  ArtifactStoreLayer,
  JetStreamEventStore,
  StreamsEnsured
).pipe(
  Layer.provideMerge(Lifetimes.layer),
  Layer.provideMerge(NatsClient.layer)
)

/** Extension: webhook deliveries, beside the projections on the same infrastructure. */
const Webhooks = WebhookDispatcher.pipe(
  Layer.provide(Layer.mergeAll(WebhookSettings.layer, EgressPolicy.layer, JetStreamEventStore))
)

/** Also exposes the infrastructure services, so in-process tests can read and write what the aggregator sees. */
export const AggregatorLayer = Layer.mergeAll(
  aggregatorWith(),
  accountAggregatorWith(),
  Webhooks,
  AggregatorMetrics,
  ExpirySweeper
).pipe(
  Layer.provide(SubjectHistory.layer),
  Layer.provideMerge(Infrastructure)
)
