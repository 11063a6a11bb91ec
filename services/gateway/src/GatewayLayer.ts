// The gateway's application layer: NATS, streams, event store, configuration, read models, artifacts and key auth.
import { DownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { FsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { KvJobReadModel } from "@mds/shared/readmodel/KvJobReadModel"
import { KvMediaReadModel } from "@mds/shared/readmodel/KvMediaReadModel"
import { Layer } from "effect"
import { ApiKeyAuth } from "./auth/ApiKeyAuth.ts"
import { KeyDirectory } from "./auth/KeyDirectory.ts"
import { PlatformHealthBoard } from "./platforms/PlatformHealthBoard.ts"

const Infrastructure = Layer.mergeAll(JetStreamEventStore, Lifetimes.layer, DownloadLinkSigner.layer).pipe(
  Layer.provideMerge(NatsClient.layer)
)

/** Streams exist before anything consumes them (the key directory) or opens buckets beside them. */
const StreamsReady = Layer.effectDiscard(ensureStreams)

const Adapters = Layer.mergeAll(
  KvJobReadModel.layer,
  KvMediaReadModel.layer,
  FsArtifactStore.layer,
  ApiKeyAuth.layer.pipe(Layer.provideMerge(KeyDirectory.layer)),
  PlatformHealthBoard.layer
)

/** The whole gateway with a given egress policy (tests replace DNS; production uses the system resolver). */
export const makeGatewayLayer = <E, R>(egress: Layer.Layer<EgressPolicy, E, R>) =>
  Layer.mergeAll(Adapters, egress).pipe(Layer.provide(StreamsReady), Layer.provideMerge(Infrastructure))

export const GatewayLayer = makeGatewayLayer(EgressPolicy.layer)

/** JSON log lines on stdout, filtered by LOG_LEVEL (default Info). */
