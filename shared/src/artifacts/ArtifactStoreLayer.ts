// Chooses the artifact store in one place: MinIO/S3 when S3_ENDPOINT is set, the local filesystem (the default) otherwise.
import { Config, Effect, Layer, Option } from "effect"
import { DownloadLinkSigner } from "./DownloadLinkSigner.ts"
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
 * Self-contained: the filesystem adapter gets its own link signer (DOWNLOAD_URL_SECRET), which the S3 adapter does
 * not need, so a service on S3 runs without that secret.
 */
export const ArtifactStoreLayer = Layer.unwrap(
  Effect.map(artifactBackend, (kind) => (kind === "s3" ? s3Layer : FsArtifactStore.layer.pipe(Layer.provide(DownloadLinkSigner.layer))))
)
