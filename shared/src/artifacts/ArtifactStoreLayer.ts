// Chooses the artifact store in one place: MinIO/S3 when S3_ENDPOINT is set, the local filesystem (the default) otherwise.
import { Config, Effect, Layer, Option } from "effect"
import { FsArtifactStore } from "./FsArtifactStore.ts"
import { S3ArtifactStore } from "./S3ArtifactStore.ts"

export type ArtifactBackendKind = "fs" | "s3"

export const artifactBackend = Config.option(Config.String("S3_ENDPOINT")).pipe(
  Config.map((endpoint): ArtifactBackendKind => (Option.isSome(endpoint) ? "s3" : "fs"))
)

/** Needs DownloadLinkSigner: the filesystem adapter's links are signed by the service and served by the gateway. */
export const ArtifactStoreLayer = Layer.unwrap(
  Effect.map(artifactBackend, (kind) => (kind === "s3" ? S3ArtifactStore.layer : FsArtifactStore.layer))
)
