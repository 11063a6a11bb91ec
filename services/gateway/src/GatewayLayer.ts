// The gateway's application layer: NATS, streams, event store, configuration, read models, artifacts, key auth, dashboard.
import { DownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { GatewayArtifactStoreLayer } from "@mds/shared/artifacts/ArtifactStoreLayer"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { LiveWait } from "@mds/shared/config/LiveWait"
import { CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import { DestinationLimit } from "@mds/shared/application/destination/DestinationLimit"
import { DestinationWriters } from "@mds/shared/destinations/DestinationWriters"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { Followers } from "@mds/shared/nats/Followers"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { CachedMediaReadModel } from "@mds/shared/readmodel/CachedMediaReadModel"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { KeyReadModel } from "@mds/shared/readmodel/KeyReadModel"
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import { ReadModelLayer } from "@mds/shared/readmodel/ReadModelLayer"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { Layer } from "effect"
import { ApiKeyAuth } from "./auth/ApiKeyAuth.ts"
import { KeyDirectory } from "./auth/KeyDirectory.ts"
import { KeyUsageRecorder } from "./auth/KeyUsageRecorder.ts"
import { DashboardLayer } from "./dashboard/DashboardLayer.ts"
import { AdmissionStates } from "@mds/shared/application/admission/AdmissionStates"
import { JobViewCache } from "./jobs/JobViewCache.ts"
import { PlatformHealthBoard } from "./platforms/PlatformHealthBoard.ts"
import { ServiceFollowersView } from "./health/ServiceFollowersView.ts"
import { YtDlpFleetView } from "./health/YtDlpFleetView.ts"
import { ParkedView } from "./health/ParkedView.ts"
import { EventStreamLimit } from "./http/EventStreamLimit.ts"
import { PollingGuard } from "./limits/PollingGuard.ts"
import { RequestRateLimiter } from "./limits/RequestRateLimiter.ts"

const Infrastructure = Layer.mergeAll(JetStreamEventStore, Lifetimes.layer, LiveWait.layer, DownloadLinkSigner.layer, Followers.layer).pipe(
  Layer.provideMerge(NatsClient.layer)
)

/** Streams exist before anything consumes them (the key directory) or opens buckets beside them. */
const StreamsReady = Layer.effectDiscard(ensureStreams)

/**
 * The configured read models, with the gateway's in-process caches in front of jobs and media: media are cached
 * as they never change, and job views are served from a mirror of the job read model (a watch of its KV bucket).
 */
const ReadModels = Layer.mergeAll(
  CachedMediaReadModel.layer,
  JobViewCache.layer.pipe(Layer.provideMerge(JobStates.layer)),
  Layer.effect(JobReadModel, JobReadModel),
  Layer.effect(ProjectReadModel, ProjectReadModel),
  Layer.effect(KeyReadModel, KeyReadModel),
  Layer.effect(UsageReadModel, UsageReadModel),
  SubscriptionStates.layer.pipe(Layer.provideMerge(Layer.effect(SubscriptionReadModel, SubscriptionReadModel)))
).pipe(Layer.provide(ReadModelLayer))

// Read models and artifacts: KV and filesystem by default, MongoDB and S3 when MONGO_URL / S3_ENDPOINT are set.
const Adapters = Layer.mergeAll(
  ReadModels,
  GatewayArtifactStoreLayer,
  ApiKeyAuth.layer.pipe(Layer.provideMerge(Layer.mergeAll(KeyDirectory.layer, KeyUsageRecorder.layer))),
  DashboardLayer,
  AdmissionStates.layer,
  ProjectQuotaReader.layer,
  PlatformHealthBoard.layer,
  RequestRateLimiter.layer,
  PollingGuard.layer,
  EventStreamLimit.layer,
  CookieVault.layer,
  YtDlpFleetView.layer,
  ServiceFollowersView.layer,
  ParkedView.layer
)

/** The whole gateway with a given egress policy (tests replace DNS; production uses the system resolver). */
export const makeGatewayLayer = <E, R>(egress: Layer.Layer<EgressPolicy, E, R>) =>
  Layer.mergeAll(Adapters, DestinationAccess.layer, DestinationLimit.layer, DestinationWriters.layer.pipe(Layer.provideMerge(egress))).pipe(
    Layer.provide(StreamsReady),
    Layer.provideMerge(Infrastructure)
  )

export const GatewayLayer = makeGatewayLayer(EgressPolicy.layer)
