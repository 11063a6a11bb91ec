// Extension: the /v1 request and answer bodies of destinations (where finished files are delivered). Credentials go in
// once and never come back out: an answer shows at most the access key id's last 4 characters, never the secret.
import { Schema } from "effect"
import { DestinationErrorCode, type ProbeOutcome } from "../destinations/DestinationWriter.ts"
import type { Destination } from "../domain/destination/DestinationState.ts"
import { maskedAccessKey } from "../domain/destination/DestinationMask.ts"
import { MAX_URL_LENGTH } from "./Requests.ts"

export const MAX_DESTINATION_NAME_LENGTH = 100
export const MAX_PREFIX_LENGTH = 512

/** Printable, no control characters: a name shows in lists, logs and the dashboard. */
const DestinationName = Schema.String.check(
  Schema.isMinLength(1, { message: "must not be empty" }),
  Schema.isMaxLength(MAX_DESTINATION_NAME_LENGTH, { message: `must be at most ${MAX_DESTINATION_NAME_LENGTH} characters` }),
  Schema.isPattern(/^[^\u0000-\u001f\u007f-\u009f]+$/u, { message: "must not hold control characters" })
).annotate({ description: `1-${MAX_DESTINATION_NAME_LENGTH} characters.` })

/** The endpoint of the S3 API, scheme, host and port only (buckets are addressed path-style). */
/**
 * Every rule below is a pattern, so the OpenAPI document states it whole: a client (or a fuzzer) that follows the
 * document never has a body refused that the document accepts.
 */

/** The endpoint of the S3 API: scheme, host and port alone (buckets are addressed path-style), no credentials. */
const EndpointUrl = Schema.String.check(
  Schema.isMaxLength(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` }),
  Schema.isPattern(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^/?#@\\\s]+\/?$/u, {
    message: "must be an http or https endpoint alone (scheme, host and port), without a path, query, fragment or credentials"
  })
).annotate({
  description:
    "The S3 API's endpoint, e.g. https://s3.eu-central-1.amazonaws.com or https://minio.example.org:9000, up to 2,048 characters. " +
    "A private or loopback address is refused (url_not_allowed) unless the operator's EGRESS_ALLOW lists it."
})

/** S3's bucket naming rules as far as a pattern says them: 3-63 lowercase letters, digits, dots and hyphens, a letter or digit at each end. */
const BucketName = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/u, {
    message: "must be 3-63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit"
  })
).annotate({ description: "The bucket (S3 naming rules: 3-63 characters of a-z, 0-9, '.', '-')." })

const Region = Schema.String.check(
  Schema.isPattern(/^[a-z0-9][a-z0-9-]{0,31}$/u, { message: "must be 1-32 lowercase letters, digits and hyphens (e.g. us-east-1)" })
).annotate({ description: "The bucket's region, e.g. us-east-1 (default) or auto; 1-32 characters of a-z, 0-9, '-'." })

/** Segments of characters S3 treats as safe, none empty, none starting with a dot (so no '.' or '..'), no leading '/'. */
const PREFIX_SEGMENT = "[A-Za-z0-9!_*'() -][A-Za-z0-9!_.*'() -]*"
const Prefix = Schema.String.check(
  Schema.isMaxLength(MAX_PREFIX_LENGTH, { message: `must be at most ${MAX_PREFIX_LENGTH} characters` }),
  Schema.isPattern(new RegExp(`^(?:${PREFIX_SEGMENT}/)*(?:${PREFIX_SEGMENT})?$`, "u"), {
    message:
      "must be segments of letters, digits, spaces and ! _ . * ' ( ) - separated by single '/', none starting with a dot, not starting with '/'"
  })
).annotate({ description: `Put before every file's key, e.g. media/ (a '/' is added at its end); up to ${MAX_PREFIX_LENGTH} characters.` })

/** Printable ASCII without spaces, its length in the pattern too (a minimum length check is published halved: JSON Schema counts code points). */
const KeyText = (what: string, min: number, max: number) =>
  Schema.String.check(
    Schema.isMaxLength(max, { message: `must be at most ${max} characters` }),
    Schema.isPattern(new RegExp(`^[\\x21-\\x7e]{${min},${max}}$`, "u"), {
      message: `must be ${min}-${max} printable ASCII characters without spaces`
    })
  ).annotate({ description: `${what}, ${min}-${max} printable ASCII characters.` })

/** The media server's base URL: scheme, host, port and an optional path (a server behind a reverse proxy's path). */
const RefreshUrl = Schema.String.check(
  Schema.isMaxLength(MAX_URL_LENGTH, { message: `must be at most ${MAX_URL_LENGTH} characters` }),
  Schema.isPattern(/^[Hh][Tt][Tt][Pp][Ss]?:\/\/[^/?#@\\\s]+(?:\/[^?#\s]*)?$/u, {
    message: "must be an http or https URL without a query, fragment or credentials"
  })
).annotate({
  description:
    "The media server's base URL, e.g. http://jellyfin.lan:8096. A private or loopback address is refused (url_not_allowed) unless the operator's EGRESS_ALLOW lists it."
})

export const LibraryRefreshRequest = Schema.Struct({
  type: Schema.Literals(["jellyfin", "plex"]).annotate({
    description: "jellyfin: POST {url}/Library/Refresh; plex: GET {url}/library/sections/all/refresh."
  }),
  url: RefreshUrl,
  token: KeyText("The server's API token (Jellyfin API key, X-Plex-Token); stored encrypted, never shown again", 8, 256)
}).annotate({
  identifier: "LibraryRefreshRequest",
  description:
    "A media server told to scan its libraries after deliveries into this destination (at most once per LIBRARY_REFRESH_DEBOUNCE)."
})
export type LibraryRefreshRequest = typeof LibraryRefreshRequest.Type

export const CreateDestinationRequest = Schema.Struct({
  name: DestinationName,
  type: Schema.Literal("s3").annotate({
    description: "s3 (any S3-compatible endpoint). A folder on the server is given by the operator, never named by a project.",
    message: 'must be "s3": a folder destination is given to the project by the operator (admin CLI), never named through the API'
  }),
  endpoint: EndpointUrl,
  bucket: BucketName,
  region: Schema.optionalKey(Region),
  prefix: Schema.optionalKey(Prefix),
  access_key_id: KeyText("The access key id; answers show only its last 4 characters", 3, 128),
  secret_access_key: KeyText("The secret access key; stored encrypted, never shown again", 8, 256),
  refresh: Schema.optionalKey(LibraryRefreshRequest)
}).annotate({ identifier: "CreateDestinationRequest" })
export type CreateDestinationRequest = typeof CreateDestinationRequest.Type

/** A prefix as stored: "" or ending in one "/". */
export const normalizedPrefix = (prefix: string | undefined): string =>
  prefix === undefined || prefix === "" ? "" : prefix.endsWith("/") ? prefix : `${prefix}/`

export const DestinationBody = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  type: Schema.Literals(["s3", "folder"]),
  /** Who made it: the project (s3) or the operator (folder). */
  created_by: Schema.Literals(["project", "operator"]),
  endpoint: Schema.NullOr(Schema.String),
  bucket: Schema.NullOr(Schema.String),
  region: Schema.NullOr(Schema.String),
  prefix: Schema.NullOr(Schema.String),
  access_key_id: Schema.NullOr(Schema.String).annotate({ description: "Masked: at most the last 4 characters, e.g. ****MPLE." }),
  refresh: Schema.NullOr(
    Schema.Struct({ type: Schema.Literals(["jellyfin", "plex"]), url: Schema.String }).annotate({
      description: "The media server told after deliveries; its token is never shown."
    })
  ),
  last_refresh: Schema.NullOr(
    Schema.Struct({
      at: Schema.String,
      ok: Schema.Boolean,
      error: Schema.NullOr(Schema.Literals(["refresh_denied", "refresh_failed", "refresh_unreachable"]))
    }).annotate({ description: "The last call to the media server; null before the first." })
  ),
  created_at: Schema.String
}).annotate({
  identifier: "Destination",
  description: "A destination; the secret is never shown. A folder's path on the server is the operator's and not shown either."
})
export type DestinationBody = typeof DestinationBody.Type

export const toDestinationBody = (destination: Destination): DestinationBody => {
  const { target } = destination
  const s3 = target.kind === "s3" ? target : null
  return {
    id: destination.destinationId,
    name: destination.name,
    type: target.kind,
    created_by: destination.createdBy,
    endpoint: s3?.endpoint ?? null,
    bucket: s3?.bucket ?? null,
    region: s3?.region ?? null,
    prefix: s3?.prefix ?? null,
    access_key_id: s3 === null ? null : maskedAccessKey(s3.accessKeyHint),
    refresh: destination.refresh === undefined ? null : { type: destination.refresh.kind, url: destination.refresh.url },
    last_refresh:
      destination.lastRefresh === undefined
        ? null
        : {
            at: new Date(destination.lastRefresh.at).toISOString(),
            ok: destination.lastRefresh.ok,
            error: destination.lastRefresh.error ?? null
          },
    created_at: new Date(destination.createdAt).toISOString()
  }
}

export const DestinationTestResult = Schema.Struct({
  ok: Schema.Boolean,
  /** The step that failed: connect (the endpoint may not be reached, or the credentials do not open), write, check, remove. */
  step: Schema.NullOr(Schema.Literals(["connect", "write", "check", "remove"])),
  error: Schema.NullOr(Schema.Struct({ code: DestinationErrorCode, message: Schema.String })),
  duration_ms: Schema.Number
}).annotate({
  identifier: "DestinationTestResult",
  description:
    "ok true: a probe object was written, found and removed. ok false: the step that failed and why: destination_denied " +
    "(credentials or permissions refused), destination_unreachable (no answer, or the endpoint may not be reached), " +
    "destination_missing (no such bucket or folder), destination_failed (anything else)."
})
export type DestinationTestResult = typeof DestinationTestResult.Type

/** A probe's outcome, or the failure to get a writer at all (the endpoint refused by the egress guard, credentials that do not open). */
export type DestinationTestOutcome =
  | ProbeOutcome
  | {
      readonly ok: false
      readonly step: "connect"
      readonly code: DestinationErrorCode
      readonly message: string
      readonly durationMs: number
    }

export const toDestinationTestResult = (outcome: DestinationTestOutcome): DestinationTestResult =>
  outcome.ok
    ? { ok: true, step: null, error: null, duration_ms: outcome.durationMs }
    : { ok: false, step: outcome.step, error: { code: outcome.code, message: outcome.message }, duration_ms: outcome.durationMs }
