// The one place where every tagged failure becomes a /v1 HTTP status and error code.
import type { ApiErrorCode } from "@mds/shared/api/ErrorCodes"
import type { CookieFileInvalid, CookiesNotConfigured, CookieVaultError } from "@mds/shared/application/cookies/CookieVault"
import type { ArtifactNotFound, ArtifactStoreError } from "@mds/shared/artifacts/ArtifactStore"
import type {
  ApiKeyAlreadyExists,
  ApiKeyNotFound,
  ConcurrencyLimitExceeded,
  FormatUnavailable,
  InvalidJobTransition,
  RunNotCurrent,
  SlotLost,
  JobAlreadyExists,
  JobAlreadyFinished,
  JobNotLive,
  JobNotFound,
  JobNotRetryable,
  MediaNotFound,
  MediaUnavailable,
  ProjectAlreadyExists,
  ProjectNotFound,
  QuotaExceeded,
  SectionOutOfRange,
  SubtitlesUnavailable,
  UnsupportedPlatform,
  UrlNotAllowed
} from "@mds/shared/domain/DomainErrors"
import type {
  InvalidSubscription,
  SubscriptionAlreadyExists,
  SubscriptionNotFound,
  SubscriptionPausedNow
} from "@mds/shared/domain/subscription/SubscriptionDecider"
import type { BatchAlreadyExists, BatchAlreadyFinished, BatchNotFound, BatchWithoutEntries } from "@mds/shared/domain/batch/BatchDecider"
import type { WebhookDeliveryNotFound, WebhookDeliveryPending } from "@mds/shared/domain/webhook/Redelivery"
import type { IdempotencyKeyInUse, IdempotencyKeyReused } from "@mds/shared/domain/idempotency/IdempotencyDecider"
import type { AppendConflict, EventStoreError } from "@mds/shared/eventstore/EventStore"
import type { PollingTooFast, RateLimitExceeded, TooManyEventStreams } from "../limits/LimitErrors.ts"
import type { FailureWithHeaders } from "./FailureWithHeaders.ts"
import type { NatsUnavailable } from "@mds/shared/nats/NatsClient"
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import type { DestinationLimitReached, GatewayFailure, NotAPlaylist, PlatformPausedNow, SubscriptionLimitReached } from "./GatewayErrors.ts"
import type { DestinationNotFound } from "@mds/shared/domain/destination/DestinationDecider"
import type { DestinationsNotConfigured } from "@mds/shared/application/destination/DestinationAccess"

export type ApiFailure =
  | GatewayFailure
  | CookieFileInvalid
  | CookiesNotConfigured
  | CookieVaultError
  | ConcurrencyLimitExceeded
  | QuotaExceeded
  | TooManyEventStreams
  | JobNotFound
  | JobAlreadyExists
  | JobAlreadyFinished
  | JobNotLive
  | JobNotRetryable
  | InvalidJobTransition
  | RunNotCurrent
  | SlotLost
  | MediaNotFound
  | UnsupportedPlatform
  | MediaUnavailable
  | UrlNotAllowed
  | FormatUnavailable
  | SectionOutOfRange
  | SubtitlesUnavailable
  | ProjectNotFound
  | ProjectAlreadyExists
  | ApiKeyNotFound
  | ApiKeyAlreadyExists
  | AppendConflict
  | EventStoreError
  | ReadModelError
  | NatsUnavailable
  | ArtifactNotFound
  | ArtifactStoreError
  | RateLimitExceeded
  | PollingTooFast
  | FailureWithHeaders
  | IdempotencyKeyReused
  | IdempotencyKeyInUse
  | PlatformPausedNow
  | BatchNotFound
  | BatchAlreadyFinished
  | BatchAlreadyExists
  | BatchWithoutEntries
  | SubscriptionNotFound
  | SubscriptionPausedNow
  | SubscriptionAlreadyExists
  | InvalidSubscription
  | NotAPlaylist
  | SubscriptionLimitReached
  | DestinationNotFound
  | DestinationLimitReached
  | DestinationsNotConfigured
  | WebhookDeliveryNotFound
  | WebhookDeliveryPending

export interface ApiError {
  readonly status: number
  /** Only catalogued codes exist (shared/src/api/ErrorCodes.ts), so the OpenAPI document lists them all. */
  readonly code: ApiErrorCode
  readonly message: string
  readonly headers?: Readonly<Record<string, string>>
}

const UNAVAILABLE = "The service is temporarily unavailable; retry shortly."

/** Retry-After on 503: outages of a dependency are usually short. */
const RETRY_SOON = { "retry-after": "2" }
/** Retry-After on 429: about one polling interval, after which a running job may have finished. */
const JOB_SLOT_RETRY_SECONDS = 5
/** Retry-After on too_many_streams: one heartbeat of the streams; a stream ends as soon as its client leaves. */
const EVENT_STREAM_RETRY_SECONDS = 15

/** Seconds in each quota's window, for RateLimit-Policy's `w`. */
const QUOTA_WINDOW_SECONDS = { jobs_per_day: 86_400, bytes_per_month: 30 * 86_400 } as const

/**
 * RateLimit-* headers (the IETF httpapi draft the key's rate limit also uses) describing the quota that refused, named
 * in the policy's `name` parameter; they replace the key's rate headers on this answer.
 */
const quotaHeaders = (failure: QuotaExceeded): Record<string, string> => ({
  "retry-after": String(failure.retryAfterSeconds),
  "ratelimit-limit": String(failure.limit),
  "ratelimit-remaining": "0",
  "ratelimit-reset": String(failure.retryAfterSeconds),
  "ratelimit-policy": `${failure.limit};w=${QUOTA_WINDOW_SECONDS[failure.quota]};name="${failure.quota}"`
})

type FailureTagged<Tag> = Extract<ApiFailure, { readonly _tag: Tag }>

/** Failures whose own message is written for clients: the response states it as it is. */
const WITH_OWN_MESSAGE = {
  MissingApiKey: [401, "missing_api_key"],
  InvalidApiKey: [401, "invalid_api_key"],
  InvalidRequest: [400, "invalid_request"],
  InvalidOptions: [422, "invalid_options"],
  InvalidPathTemplate: [422, "invalid_path_template"],
  InvalidDateRange: [422, "invalid_date_range"],
  InvalidJson: [400, "invalid_json"],
  ExtractionFailed: [502, "extraction_failed"],
  ExtractionTimeout: [504, "extraction_timeout"],
  UnsupportedPlatform: [422, "unsupported_platform"],
  MediaUnavailable: [422, "media_unavailable"],
  UrlNotAllowed: [422, "url_not_allowed"],
  SectionOutOfRange: [422, "section_out_of_range"],
  InvalidSubscription: [422, "invalid_options"]
} as const satisfies Partial<Record<ApiFailure["_tag"], readonly [number, ApiErrorCode]>>

/** Failures answered with the same error every time. */
const FIXED = {
  RevokedApiKey: { status: 401, code: "revoked_api_key", message: "This API key has been revoked." },
  InvalidSignature: { status: 403, code: "invalid_signature", message: "The download link signature is invalid." },
  LinkExpired: { status: 410, code: "link_expired", message: "The download link has expired." },
  DestinationsNotConfigured: {
    status: 503,
    code: "service_unavailable",
    message: "S3 destinations cannot be stored: this server has no DESTINATIONS_ENCRYPTION_KEY."
  },
  CookiesNotConfigured: {
    status: 503,
    code: "service_unavailable",
    message: "Cookies cannot be stored: this server has no COOKIES_ENCRYPTION_KEY."
  },
  IdempotencyKeyReused: {
    status: 409,
    code: "idempotency_key_reused",
    message: "This Idempotency-Key was already used with a different request body; use a new key."
  },
  ArtifactNotFound: { status: 404, code: "not_found", message: "The file does not exist (it may have been removed)." }
} as const satisfies Partial<Record<ApiFailure["_tag"], ApiError>>

const hasOwnMessage = (failure: ApiFailure): failure is FailureTagged<keyof typeof WITH_OWN_MESSAGE> =>
  Object.hasOwn(WITH_OWN_MESSAGE, failure._tag)
const isFixed = (failure: ApiFailure): failure is FailureTagged<keyof typeof FIXED> => Object.hasOwn(FIXED, failure._tag)

/** A retry refused, with its reason as the code: the job is not failed, its failure is not retryable, or it was canceled. */
const notRetryableError = (failure: JobNotRetryable): ApiError => {
  switch (failure.reason) {
    case "not_failed":
      return {
        status: 409,
        code: "job_not_failed",
        message: `Job ${failure.jobId} is ${failure.detail}; only a failed job can be retried.`
      }
    case "not_retryable":
      return {
        status: 409,
        code: "job_not_retryable",
        message: `Job ${failure.jobId} failed with ${failure.detail}, which is not retryable: trying again would fail the same way.`
      }
    case "canceled":
      return { status: 409, code: "job_canceled", message: `Job ${failure.jobId} was canceled; queue the download again instead.` }
  }
}

/** Messages never echo secrets or internal details; storage failures are logged by the caller instead. */
export const toApiError = (failure: ApiFailure): ApiError => {
  if (hasOwnMessage(failure)) {
    const [status, code] = WITH_OWN_MESSAGE[failure._tag]
    return { status, code, message: failure.message }
  }
  if (isFixed(failure)) return FIXED[failure._tag]
  switch (failure._tag) {
    case "InsufficientScope":
      return { status: 403, code: "insufficient_scope", message: `This API key lacks the scope ${failure.scope}.` }
    case "PayloadTooLarge":
      return { status: 413, code: "payload_too_large", message: `The request body exceeds ${failure.limitBytes} bytes.` }
    case "UnsupportedMediaType":
      return {
        status: 415,
        code: "unsupported_media_type",
        message: `Content-Type ${failure.contentType || "(none)"} is not supported; send application/json.`
      }
    case "RouteNotFound":
      return { status: 404, code: "not_found", message: `No route ${failure.method} ${failure.path}.` }
    case "MethodNotAllowed":
      return {
        status: 405,
        code: "method_not_allowed",
        message: `Method ${failure.method} is not allowed here; allowed: ${failure.allow.join(", ")}.`,
        headers: { allow: failure.allow.join(", ") }
      }
    case "ServiceUnavailable":
      return { status: 503, code: "service_unavailable", message: failure.message, headers: RETRY_SOON }
    case "CookieFileInvalid":
      return { status: 422, code: "invalid_cookie_file", message: `cookies_txt: ${failure.message}.` }
    case "CookieVaultError":
      return { status: 503, code: "service_unavailable", message: "The cookie store is unavailable; retry shortly.", headers: RETRY_SOON }
    case "ConcurrencyLimitExceeded":
      return {
        status: 429,
        code: "concurrency_limit_exceeded",
        message: `The project already has ${failure.limit} jobs queued or processing; wait for one to finish.`,
        headers: { "retry-after": String(JOB_SLOT_RETRY_SECONDS) }
      }
    case "QuotaExceeded":
      return {
        status: 429,
        code: "quota_exceeded",
        message:
          failure.quota === "jobs_per_day"
            ? `The project's quota of ${failure.limit} jobs per day (UTC) is used up; it resets at ${new Date(failure.resetAt).toISOString()}.`
            : `The project's quota of ${failure.limit} downloaded bytes per month (UTC) is used up (${failure.used} used); it resets at ${new Date(failure.resetAt).toISOString()}.`,
        headers: quotaHeaders(failure)
      }
    case "JobNotFound":
      return { status: 404, code: "job_not_found", message: `Job ${failure.jobId} does not exist or has expired.` }
    case "JobAlreadyFinished":
      return {
        status: 409,
        code: "job_already_finished",
        message: `Job ${failure.jobId} already ended (${failure.status}); only a queued or processing job can be canceled.`
      }
    case "JobNotLive":
      return {
        status: 409,
        code: "job_not_live",
        message: `Job ${failure.jobId} is not recording a live stream (${failure.status}); only a recording can be stopped.`
      }
    case "JobNotRetryable":
      return notRetryableError(failure)
    case "MediaNotFound":
      return {
        status: 404,
        code: "media_not_found",
        message: `Media ${failure.mediaId} does not exist or has expired; resolve the URL again.`
      }
    case "FormatUnavailable":
      return {
        status: 422,
        code: "format_unavailable",
        message:
          failure.available.length > 0
            ? `Format ${failure.format} is not available; available formats: ${failure.available.join(", ")}.`
            : `Format ${failure.format} is not a known format id (video_best, video_<height>p, audio_best, audio_mp3, audio_m4a).`
      }
    case "BatchNotFound":
      return { status: 404, code: "batch_not_found", message: `Batch ${failure.batchId} does not exist or has expired.` }
    case "BatchAlreadyFinished":
      return { status: 409, code: "batch_already_finished", message: `Batch ${failure.batchId} already ended; every entry finished.` }
    case "SubscriptionNotFound":
      return {
        status: 404,
        code: "subscription_not_found",
        message: `Subscription ${failure.subscriptionId} does not exist or was removed.`
      }
    case "SubscriptionPausedNow":
      return { status: 409, code: "subscription_paused", message: `Subscription ${failure.subscriptionId} is paused; resume it first.` }
    case "WebhookDeliveryNotFound":
      return {
        status: 404,
        code: "delivery_not_found",
        message: `Delivery ${failure.deliveryId} is not in this project's delivery log of job events (see GET /webhooks/deliveries).`
      }
    case "WebhookDeliveryPending":
      return {
        status: 409,
        code: "delivery_pending",
        message: `Delivery ${failure.deliveryId} is still being retried (next attempt at ${new Date(failure.nextAttemptAt).toISOString()}); it can be sent again once it ended.`
      }
    case "NotAPlaylist":
      return {
        status: 422,
        code: "not_a_playlist",
        message: `${failure.url} resolves as one media, not as a playlist, channel or feed: nothing to follow (download it with POST /media/download).`
      }
    case "DestinationNotFound":
      return { status: 404, code: "destination_not_found", message: `Destination ${failure.destinationId} does not exist or was removed.` }
    case "DestinationLimitReached":
      return {
        status: 429,
        code: "destination_limit_reached",
        message: `The project already has ${failure.limit} destinations, as many as it may; remove one first (DELETE /destinations/{id}).`
      }
    case "SubscriptionLimitReached":
      return {
        status: 429,
        code: "subscription_limit_reached",
        message: `The project already has ${failure.limit} subscriptions, as many as it may; remove one first (DELETE /subscriptions/{id}).`
      }
    case "SubtitlesUnavailable":
      return {
        status: 422,
        code: "subtitles_unavailable",
        message:
          `No subtitles in ${failure.missing.join(", ")}; ` +
          (failure.available.length === 0 ? "this media has none." : `available: ${failure.available.join(", ")}.`)
      }
    case "FailureWithHeaders": {
      const inner = toApiError(failure.failure as ApiFailure)
      return { ...inner, headers: { ...failure.headers, ...inner.headers } }
    }
    case "RateLimitExceeded":
      return {
        status: 429,
        code: "rate_limit_exceeded",
        message:
          failure.counted === "failed_authentications"
            ? `More than ${failure.limit} failed authentications from this address or key prefix in ${failure.windowSeconds} s; retry in ${failure.retryAfterSeconds} s.`
            : `This API key made more than ${failure.limit} requests in ${failure.windowSeconds} s; retry in ${failure.retryAfterSeconds} s.`,
        headers: {
          "retry-after": String(failure.retryAfterSeconds),
          "ratelimit-limit": String(failure.limit),
          "ratelimit-remaining": "0",
          "ratelimit-reset": String(failure.retryAfterSeconds),
          "ratelimit-policy": `${failure.limit};w=${failure.windowSeconds}`
        }
      }
    case "TooManyEventStreams":
      return {
        status: 429,
        code: "too_many_streams",
        message: `The project already holds ${failure.limit} event streams open on this gateway; close one, or retry later.`,
        headers: { "retry-after": String(EVENT_STREAM_RETRY_SECONDS) }
      }
    case "PollingTooFast":
      return {
        status: 429,
        code: "polling_too_fast",
        message: `Poll job ${failure.jobId} at most every ${failure.minIntervalSeconds} s; retry in ${failure.retryAfterSeconds} s.`,
        headers: { "retry-after": String(failure.retryAfterSeconds) }
      }
    case "PlatformPausedNow":
      return {
        status: 503,
        code: "platform_paused",
        message: `Platform ${failure.platform} is paused after repeated blocks until ${new Date(failure.until).toISOString()}.`,
        headers: { "retry-after": String(failure.retryAfterSeconds) }
      }
    case "IdempotencyKeyInUse":
      return {
        status: 409,
        code: "idempotency_key_in_use",
        message: "A request with this Idempotency-Key is still being processed; retry shortly.",
        headers: RETRY_SOON
      }
    case "AppendConflict":
    case "EventStoreError":
    case "ReadModelError":
    case "NatsUnavailable":
    // The job's slot was freed while its request was stalled past the orphan grace: the request is worth repeating.
    case "SlotLost":
      return { status: 503, code: "service_unavailable", message: UNAVAILABLE, headers: RETRY_SOON }
    // Failures that a correct gateway never lets reach a client: they are bugs, not client errors.
    case "JobAlreadyExists":
    case "BatchAlreadyExists":
    case "BatchWithoutEntries":
    case "SubscriptionAlreadyExists":
    case "InvalidJobTransition":
    case "RunNotCurrent":
    case "ProjectNotFound":
    case "ProjectAlreadyExists":
    case "ApiKeyNotFound":
    case "ApiKeyAlreadyExists":
    case "ArtifactStoreError":
      return internalError
  }
}

export const internalError: ApiError = { status: 500, code: "internal_error", message: "An internal error occurred." }

/**
 * Storage and bug-class failures are worth a log line with their details; client mistakes are not, and neither is a
 * paused platform (the extractor logged the pause once).
 */
export const isServerSide = (error: ApiError): boolean => error.status >= 500 && error.code !== "platform_paused"
