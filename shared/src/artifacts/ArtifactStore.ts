// Port: where finished downloads live. Adapters: local filesystem (embedded, links served by the gateway), MinIO/S3.
import type { Readable } from "node:stream"
import { Context, type Effect, Schema } from "effect"

export class ArtifactNotFound extends Schema.TaggedError<ArtifactNotFound>()("ArtifactNotFound", {
  key: Schema.String
}) {}

export class ArtifactStoreError extends Schema.TaggedError<ArtifactStoreError>()("ArtifactStoreError", {
  operation: Schema.String,
  message: Schema.String
}) {}

export interface StoredArtifact {
  readonly key: string
  readonly sizeBytes: number
}

export interface OpenedArtifact {
  readonly body: Readable
  readonly sizeBytes: number
  readonly contentType: string
}

export class ArtifactStore extends Context.Service<
  ArtifactStore,
  {
    /** Streams a local file into the store under `key` (no whole file in memory). */
    putFile(key: string, path: string, contentType: string): Effect.Effect<StoredArtifact, ArtifactStoreError>
    /** Opens a stored artifact for reading; used by the gateway to serve links of the filesystem adapter. */
    open(key: string): Effect.Effect<OpenedArtifact, ArtifactNotFound | ArtifactStoreError>
    /** A URL anyone holding it can GET until `expiresAt` (epoch ms); `filename` is the name offered to browsers. */
    presign(key: string, options: { readonly expiresAt: number; readonly filename: string }): Effect.Effect<string, ArtifactStoreError>
    remove(key: string): Effect.Effect<void, ArtifactStoreError>
  }
>()("mds/artifacts/ArtifactStore") {}
