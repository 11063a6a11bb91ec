// Chooses the artifact store in one place: MinIO/S3 when S3_ENDPOINT is set, the local filesystem (the default) otherwise.
import { Config, Effect, Layer, Option } from "effect"
import { DownloadLinkSigner, gatewayBaseUrl, requiredBaseUrl } from "./DownloadLinkSigner.ts"
import { FsArtifactStore } from "./FsArtifactStore.ts"

export type ArtifactBackendKind = "fs" | "s3"

export const artifactBackend = Config.option(Config.String("S3_ENDPOINT")).pipe(
  Config.map((endpoint): ArtifactBackendKind => (Option.isSome(endpoint) ? "s3" : "fs"))
)

/** The S3 adapter brings the minio client (about 8 MB of heap): loaded only by services configured for S3. */
const s3Layer = Layer.unwrap(
  Effect.promise(() => import("./S3ArtifactStore.ts")).pipe(Effect.map((module) => module.S3ArtifactStore.layer))
)

/**
 * Self-contained: the filesystem adapter gets its own link signer (DOWNLOAD_URL_SECRET, links under `publicBaseUrl`),
 * which the S3 adapter does not need (its links start with S3_PUBLIC_URL), so a service on S3 runs without either.
 */
const artifactStoreLayerWith = (publicBaseUrl: Config.Config<string>) =>
  Layer.unwrap(
    Effect.map(artifactBackend, (kind) =>
      kind === "s3" ? s3Layer : FsArtifactStore.layer.pipe(Layer.provide(DownloadLinkSigner.layerWith(publicBaseUrl)))
    )
  )

/** The gateway's: its links default to its own address (PUBLIC_BASE_URL, else http://127.0.0.1:$PORT). */
export const GatewayArtifactStoreLayer = artifactStoreLayerWith(gatewayBaseUrl)

/** The aggregator's and the extractor's: on the filesystem adapter they sign links too, so PUBLIC_BASE_URL is required. */
export const ArtifactStoreLayer = artifactStoreLayerWith(requiredBaseUrl)
