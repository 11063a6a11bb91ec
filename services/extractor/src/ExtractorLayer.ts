// The extractor application as one layer: NATS, event store, storage, egress, yt-dlp, and the RPC and worker loops.
import { Effect, Layer } from "effect"
import { ArtifactStoreLayer } from "@mds/shared/artifacts/ArtifactStoreLayer"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { LiveWait } from "@mds/shared/config/LiveWait"
import { CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Impersonation } from "./antibot/Impersonation.ts"
import { RunAccess } from "./egress/RunAccess.ts"
import { UpstreamProxies } from "./egress/UpstreamProxies.ts"
import { CookieCopies } from "./cookies/CookieCopies.ts"
import { RunCookies } from "./cookies/RunCookies.ts"
import { CatalogPublisher } from "./catalog/CatalogPublisher.ts"
import { DownloadJob } from "./download/DownloadJob.ts"
import { DownloadWorker } from "./download/DownloadWorker.ts"
import { FragmentConcurrency } from "./download/FragmentConcurrency.ts"
import { FetchMedia } from "./download/FetchMedia.ts"
import { JobCancelWatch } from "./download/JobCancelWatch.ts"
import { OutputConversion } from "./output/OutputConversion.ts"
import { StaleWorkDirs } from "./download/StaleWorkDirs.ts"
import { ExtractorConfig } from "./ExtractorConfig.ts"
import { PlatformOutcomes } from "./health/PlatformOutcomes.ts"
import { Ffmpeg } from "./media/Ffmpeg.ts"
import { ActiveRelease } from "./ytdlp/ActiveRelease.ts"
import { ReleaseConfig } from "./releases/ReleaseConfig.ts"
import { ReleaseFollower } from "./releases/ReleaseFollower.ts"
import { ReleaseInstaller } from "./releases/ReleaseInstaller.ts"
import { ReleaseSelfCheck } from "./releases/ReleaseSelfCheck.ts"
import { PlatformPacing } from "./pacing/PlatformPacing.ts"
import { MediaResolver } from "./resolve/MediaResolver.ts"
import { ObjectStoreResolvedInfoStore } from "./resolve/info/ObjectStoreResolvedInfoStore.ts"
import { ResolveRpcServer } from "./resolve/ResolveRpcServer.ts"
import { Confinement } from "./sandbox/Confinement.ts"
import { WarmRunner } from "./warm/WarmRunner.ts"
import { YtDlp } from "./ytdlp/YtDlp.ts"

const Streams = Layer.effectDiscard(ensureStreams)

const Infrastructure = Layer.mergeAll(
  JetStreamEventStore,
  // The filesystem by default, MinIO/S3 when S3_ENDPOINT is set.
  ArtifactStoreLayer,
  EgressPolicy.layer,
  // New runs read the active release when they start: ReleaseFollower switches it.
  Layer.mergeAll(YtDlp.layer.pipe(Layer.provideMerge(WarmRunner.layer), Layer.provideMerge(ActiveRelease.layer)), Ffmpeg.layer).pipe(
    Layer.provideMerge(Layer.mergeAll(Confinement.layer, ExtractorConfig.layer))
  )
).pipe(Layer.provideMerge(Streams), Layer.provideMerge(Layer.mergeAll(NatsClient.layer, Lifetimes.layer, LiveWait.layer)))

const Workers = Layer.mergeAll(ResolveRpcServer, DownloadWorker).pipe(
  Layer.provide(
    Layer.mergeAll(
      MediaResolver.layer,
      DownloadJob.layer.pipe(
        Layer.provide(Layer.merge(FetchMedia.layer.pipe(Layer.provide(OutputConversion.layer)), JobCancelWatch.layer))
      ),
      FragmentConcurrency.layer
    )
  ),
  // One memory of which platforms need a browser's fingerprint, and one pacing, shared by resolves and downloads.
  Layer.provide(
    Layer.mergeAll(Impersonation.layer, PlatformPacing.layer, RunAccess.layer).pipe(
      Layer.provide(
        Layer.mergeAll(UpstreamProxies.layer, RunCookies.layer.pipe(Layer.provide(Layer.merge(CookieVault.layer, CookieCopies.layer))))
      )
    )
  ),
  Layer.provide(Layer.mergeAll(PlatformOutcomes.layer, ObjectStoreResolvedInfoStore.layer))
)

const Releases = ReleaseFollower.pipe(
  Layer.provide(Layer.mergeAll(ReleaseInstaller.layer, ReleaseSelfCheck.layer)),
  Layer.provide(Layer.mergeAll(ReleaseConfig.layer, UpstreamProxies.layer))
)

const Ready = Layer.effectDiscard(Effect.logInfo("extractor ready"))

/** Also exposes the infrastructure services, so in-process tests can read what the extractor wrote. */
export const ExtractorLayer = Ready.pipe(
  Layer.provide(Workers),
  Layer.provide(CatalogPublisher),
  Layer.provide(Releases),
  Layer.provide(StaleWorkDirs),
  Layer.provideMerge(Infrastructure)
)
