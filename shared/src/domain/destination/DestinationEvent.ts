// Extension: a project's destinations (where finished files are delivered: an S3-compatible bucket the project named,
// or a folder on the service's host the operator gave it), one subject per destination:
// mds.destination.<projectId>.<destinationId>. Credentials travel only sealed (AES-256-GCM), never in clear.
import { Schema } from "effect"

const V1 = Schema.Literal(1)

/** An S3-compatible bucket, as the project named it. */
export const S3Target = Schema.Struct({
  kind: Schema.Literal("s3"),
  endpoint: Schema.String,
  bucket: Schema.String,
  region: Schema.String,
  /** Prepended to every key ("" or ending in "/"). */
  prefix: Schema.String,
  /** The last characters of the access key id (DestinationMask.ts): all an answer may show of it. */
  accessKeyHint: Schema.String,
  /** The access key id and secret, sealed with DESTINATIONS_ENCRYPTION_KEY for this destination (base64). */
  sealedCredentials: Schema.String
})
export type S3Target = typeof S3Target.Type

/** A folder on the service's host; only the operator names one (admin CLI). */
export const FolderTarget = Schema.Struct({ kind: Schema.Literal("folder"), path: Schema.String })
export type FolderTarget = typeof FolderTarget.Type

export const DestinationTarget = Schema.Union([S3Target, FolderTarget])
export type DestinationTarget = typeof DestinationTarget.Type

/** A media server told to scan its libraries after a delivery (Jellyfin or Plex); its token sealed like the credentials. */
export const LibraryRefreshTarget = Schema.Struct({
  kind: Schema.Literals(["jellyfin", "plex"]),
  /** The server's base URL (scheme, host, port), vetted by the egress guard when given and when called. */
  url: Schema.String,
  /** The API token, sealed with DESTINATIONS_ENCRYPTION_KEY for this destination (base64). */
  sealedToken: Schema.String
})
export type LibraryRefreshTarget = typeof LibraryRefreshTarget.Type

/** A member of the project created an S3 destination (POST /destinations, `mds destinations add`, the dashboard). */
export const DestinationCreated = Schema.TaggedStruct("DestinationCreated", {
  v: V1,
  projectId: Schema.String,
  destinationId: Schema.String,
  name: Schema.String,
  target: S3Target,
  /** Absent: no media server is told after a delivery. */
  refresh: Schema.optionalKey(LibraryRefreshTarget),
  at: Schema.Number
})
export type DestinationCreated = typeof DestinationCreated.Type

/** The operator gave the project a folder on the host (`npm run mds -- destinations add-folder`). */
export const FolderDestinationAssigned = Schema.TaggedStruct("FolderDestinationAssigned", {
  v: V1,
  projectId: Schema.String,
  destinationId: Schema.String,
  name: Schema.String,
  target: FolderTarget,
  /** Absent: no media server is told after a delivery. */
  refresh: Schema.optionalKey(LibraryRefreshTarget),
  at: Schema.Number
})
export type FolderDestinationAssigned = typeof FolderDestinationAssigned.Type

/** Removed by a member (any destination of the project) or the operator; nothing more is delivered to it. */
export const DestinationRemoved = Schema.TaggedStruct("DestinationRemoved", {
  v: V1,
  projectId: Schema.String,
  destinationId: Schema.String,
  at: Schema.Number
})
export type DestinationRemoved = typeof DestinationRemoved.Type

/** The destination's media server was asked to refresh its libraries after deliveries: `ok`, or the failure's code. */
export const DestinationLibraryRefreshed = Schema.TaggedStruct("DestinationLibraryRefreshed", {
  v: V1,
  projectId: Schema.String,
  destinationId: Schema.String,
  ok: Schema.Boolean,
  /** refresh_denied (401/403), refresh_failed (another status), refresh_unreachable (no answer, or refused by the egress guard). */
  error: Schema.optionalKey(Schema.Literals(["refresh_denied", "refresh_failed", "refresh_unreachable"])),
  at: Schema.Number
})
export type DestinationLibraryRefreshed = typeof DestinationLibraryRefreshed.Type

export const DestinationEvent = Schema.Union([
  DestinationCreated,
  FolderDestinationAssigned,
  DestinationRemoved,
  DestinationLibraryRefreshed
])
export type DestinationEvent = typeof DestinationEvent.Type
