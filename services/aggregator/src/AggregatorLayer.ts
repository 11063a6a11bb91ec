// The aggregator's application layer: NATS, streams, KV read models, the artifact store for links, all projections.
import { Layer } from "effect"
import { DownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { FsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KvJobReadModel } from "@mds/shared/readmodel/KvJobReadModel"
import { KvKeyReadModel } from "@mds/shared/readmodel/KvKeyReadModel"
import { KvProjectReadModel } from "@mds/shared/readmodel/KvProjectReadModel"
import { KvMediaReadModel } from "@mds/shared/readmodel/KvMediaReadModel"
import { accountAggregatorWith } from "./AccountAggregator.ts"
import { type AggregatorOptions, defaultAggregatorOptions, makeAggregator } from "./Aggregator.ts"
import { ExpirySweeper } from "./expiry/ExpirySweeper.ts"
import { JobProjection } from "./JobProjection.ts"
import { MediaProjection } from "./MediaProjection.ts"
import { SubjectHistory } from "./SubjectHistory.ts"

/** The projections over whatever JobReadModel, MediaReadModel, ArtifactStore and NatsClient are provided. */
export const Projections = Layer.mergeAll(JobProjection.layer, MediaProjection.layer).pipe(
  Layer.provide(SubjectHistory.layer)
)

/** Consumers plus projections; needs NatsClient, the read models and the ArtifactStore. */
export const aggregatorWith = (options: AggregatorOptions = defaultAggregatorOptions) =>
  makeAggregator(options).pipe(Layer.provide(Projections))

const StreamsEnsured = Layer.effectDiscard(ensureStreams)

const Infrastructure = Layer.mergeAll(
  KvJobReadModel.layer,
  KvMediaReadModel.layer,
  KvProjectReadModel.layer,
  KvKeyReadModel.layer,
  FsArtifactStore.layer.pipe(Layer.provide(DownloadLinkSigner.layer)),
  JetStreamEventStore,
  StreamsEnsured
).pipe(
  Layer.provideMerge(Lifetimes.layer),
  Layer.provideMerge(NatsClient.layer)
)

/** Also exposes the infrastructure services, so in-process tests can read and write what the aggregator sees. */
export const AggregatorLayer = Layer.mergeAll(aggregatorWith(), accountAggregatorWith(), ExpirySweeper).pipe(
  Layer.provide(SubjectHistory.layer),
  Layer.provideMerge(Infrastructure)
)
