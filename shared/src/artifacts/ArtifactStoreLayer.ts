// Chooses the artifact store in one place: MinIO/S3 when S3_ENDPOINT is set, the local filesystem (the default) otherwise.
import { Config, Effect, Layer, Option } from "effect"
import { DownloadLinkSigner } from "./DownloadLinkSigner.ts"
import { FsArtifactStore } from "./FsArtifactStore.ts"

export type ArtifactBackendKind = "fs" | "s3"

export const artifactBackend = Config.option(Config.String("S3_ENDPOINT")).pipe(
  Config.map((endpoint): ArtifactBackendKind => (Option.isSome(endpoint) ? "s3" : "fs"))
)

/**
 * Self-contained: the filesystem adapter gets its own link signer (DOWNLOAD_URL_SECRET), which the S3 adapter does
 * not need, so a service on S3 runs without that secret. The S3 adapter is imported on demand, so the embedded
 * default never loads the MinIO client (about 9 MB of heap per process).
 */
export const ArtifactStoreLayer = Layer.unwrap(
  Effect.flatMap(artifactBackend, (kind) =>
    kind === "s3"
      ? Effect.promise(() => import("./S3ArtifactStore.ts")).pipe(Effect.map((s3) => s3.S3ArtifactStore.layer))
      : Effect.succeed(FsArtifactStore.layer.pipe(Layer.provide(DownloadLinkSigner.layer))))
)
