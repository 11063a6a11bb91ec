// The one place a stored artifact's link is made: every answer that hands one out (GET /v1/jobs, the job stream,
// webhooks, thumbnails) signs it here when it answers, with the answering service's settings. No read model stores one.
import type { Effect } from "effect"
import type { ArtifactStore, ArtifactStoreError } from "./ArtifactStore.ts"

/** What a link needs, as the read model keeps it: where the file is, until when, and the name offered to browsers. */
export interface LinkedArtifact {
  readonly key: string
  readonly availableUntil: number
  readonly filename: string
}

/**
 * The same artifact always gives the same link (the filesystem adapter's HMAC over key and expiry, S3's presign dated
 * from the expiry), so answers cached per view, repeated webhook deliveries and another gateway all agree.
 */
export const downloadLinkOf = (artifacts: ArtifactStore["Service"], artifact: LinkedArtifact): Effect.Effect<string, ArtifactStoreError> =>
  artifacts.presign(artifact.key, { expiresAt: artifact.availableUntil, filename: artifact.filename })
