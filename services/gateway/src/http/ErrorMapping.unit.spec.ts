// Given a tagged failure, then the /v1 status and code the gateway answers with.
import { errorCatalogue } from "@mds/shared/api/ErrorCodes"
import { CookieFileInvalid, CookiesNotConfigured, CookieVaultError } from "@mds/shared/application/cookies/CookieVault"
import { ArtifactNotFound, ArtifactStoreError } from "@mds/shared/artifacts/ArtifactStore"
import {
  ConcurrencyLimitExceeded,
  QuotaExceeded,
  FormatUnavailable,
  InvalidJobTransition,
  JobNotFound,
  MediaNotFound,
  MediaUnavailable,
  UnsupportedPlatform,
  UrlNotAllowed
} from "@mds/shared/domain/DomainErrors"
import { IdempotencyKeyInUse, IdempotencyKeyReused } from "@mds/shared/domain/idempotency/IdempotencyDecider"
import { WebhookDeliveryNotFound, WebhookDeliveryPending } from "@mds/shared/domain/webhook/Redelivery"
import { AppendConflict, EventStoreError } from "@mds/shared/eventstore/EventStore"
import { NatsUnavailable } from "@mds/shared/nats/NatsClient"
import { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { describe, expect, it } from "vitest"
import { type ApiFailure, toApiError } from "./ErrorMapping.ts"
import {
  ExtractionFailed,
  ExtractionTimeout,
  InvalidJson,
  InvalidRequest,
  InvalidSignature,
  LinkExpired,
  MethodNotAllowed,
  PayloadTooLarge,
  PlatformPausedNow,
  RouteNotFound,
  ServiceUnavailable,
  UnsupportedMediaType
} from "./GatewayErrors.ts"
import { InsufficientScope, InvalidApiKey, MissingApiKey, RevokedApiKey } from "../auth/AuthErrors.ts"

const table: ReadonlyArray<readonly [ApiFailure, number, string]> = [
  [new MissingApiKey({ message: "m" }), 401, "missing_api_key"],
  [new InvalidApiKey({ message: "m" }), 401, "invalid_api_key"],
  [new RevokedApiKey({ keyId: "key_x" }), 401, "revoked_api_key"],
  [new InsufficientScope({ scope: "media:download" }), 403, "insufficient_scope"],
  [new InvalidRequest({ message: "url: Missing key" }), 400, "invalid_request"],
  [new InvalidJson({ message: "m" }), 400, "invalid_json"],
  [new PayloadTooLarge({ limitBytes: 16384 }), 413, "payload_too_large"],
  [new UnsupportedMediaType({ contentType: "text/plain" }), 415, "unsupported_media_type"],
  [new RouteNotFound({ method: "GET", path: "/v1/x" }), 404, "not_found"],
  [new MethodNotAllowed({ method: "PUT", allow: ["GET", "HEAD"] }), 405, "method_not_allowed"],
  [new ServiceUnavailable({ message: "m" }), 503, "service_unavailable"],
  [new ExtractionFailed({ message: "m" }), 502, "extraction_failed"],
  [new ExtractionTimeout({ message: "m" }), 504, "extraction_timeout"],
  [new InvalidSignature(), 403, "invalid_signature"],
  [new LinkExpired(), 410, "link_expired"],
  [new ConcurrencyLimitExceeded({ projectId: "prj_x", limit: 2 }), 429, "concurrency_limit_exceeded"],
  [
    new QuotaExceeded({ projectId: "prj_x", quota: "jobs_per_day", limit: 5, used: 5, resetAt: 86_400_000, retryAfterSeconds: 60 }),
    429,
    "quota_exceeded"
  ],
  [new JobNotFound({ jobId: "job_x" }), 404, "job_not_found"],
  [new MediaNotFound({ mediaId: "med_x" }), 404, "media_not_found"],
  [new UnsupportedPlatform({ url: "u", message: "m" }), 422, "unsupported_platform"],
  [new MediaUnavailable({ url: "u", message: "m" }), 422, "media_unavailable"],
  [new UrlNotAllowed({ url: "u", message: "m" }), 422, "url_not_allowed"],
  [new FormatUnavailable({ format: "video_1p", available: ["video_best"] }), 422, "format_unavailable"],
  [new ArtifactNotFound({ key: "k" }), 404, "not_found"],
  [new WebhookDeliveryNotFound({ deliveryId: "dlv_x" }), 404, "delivery_not_found"],
  [new WebhookDeliveryPending({ deliveryId: "dlv_x", nextAttemptAt: 0 }), 409, "delivery_pending"],
  [new IdempotencyKeyReused(), 409, "idempotency_key_reused"],
  [new PlatformPausedNow({ platform: "vimeo", until: 0, retryAfterSeconds: 30 }), 503, "platform_paused"],
  [new IdempotencyKeyInUse(), 409, "idempotency_key_in_use"],
  [new AppendConflict({ subject: "s", expectedLastSeq: 1 }), 503, "service_unavailable"],
  [new EventStoreError({ operation: "o", message: "nats down" }), 503, "service_unavailable"],
  [new ReadModelError({ operation: "o", message: "m" }), 503, "service_unavailable"],
  [new NatsUnavailable({ message: "m" }), 503, "service_unavailable"],
  [new CookieFileInvalid({ message: "line 2 is not a Netscape cookie line" }), 422, "invalid_cookie_file"],
  [new CookiesNotConfigured(), 503, "service_unavailable"],
  [new CookieVaultError({ message: "m" }), 503, "service_unavailable"],
  [new ArtifactStoreError({ operation: "o", message: "disk" }), 500, "internal_error"],
  [new InvalidJobTransition({ jobId: "j", status: "queued", command: "CompleteJob" }), 500, "internal_error"]
]

describe("toApiError", () => {
  it.each(table)("given %s, then its status and code", (failure, status, code) => {
    const error = toApiError(failure)
    expect(error.status).toBe(status)
    expect(error.code).toBe(code)
    expect(error.message.length).toBeGreaterThan(0)
    // The OpenAPI document states each code's status from the catalogue.
    expect(errorCatalogue[error.code].status).toBe(status)
  })

  it("405 carries the Allow header; messages name the scope and the available formats", () => {
    expect(toApiError(new MethodNotAllowed({ method: "PUT", allow: ["GET", "HEAD"] })).headers).toEqual({ allow: "GET, HEAD" })
    // The client retries 429 and 503 after Retry-After.
    expect(toApiError(new ConcurrencyLimitExceeded({ projectId: "prj_x", limit: 2 })).headers).toEqual({ "retry-after": "5" })
    expect(toApiError(new ServiceUnavailable({ message: "m" })).headers).toEqual({ "retry-after": "2" })
    expect(toApiError(new NatsUnavailable({ message: "m" })).headers).toEqual({ "retry-after": "2" })
    expect(toApiError(new PlatformPausedNow({ platform: "vimeo", until: 0, retryAfterSeconds: 42 })).headers).toEqual({
      "retry-after": "42"
    })
    expect(toApiError(new InsufficientScope({ scope: "media:download" })).message).toContain("media:download")
    expect(toApiError(new FormatUnavailable({ format: "video_1p", available: ["video_best", "audio_m4a"] })).message).toContain(
      "video_best, audio_m4a"
    )
  })

  it("storage failures never leak their details to clients", () => {
    expect(toApiError(new EventStoreError({ operation: "o", message: "nats down at 10.0.0.1" })).message).not.toContain("10.0.0.1")
    expect(toApiError(new ArtifactStoreError({ operation: "o", message: "/srv/secret" })).message).not.toContain("/srv")
  })
})
