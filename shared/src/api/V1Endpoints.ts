// The /v1 API as data: every endpoint with its access, request and answer schemas and errors. The gateway binds a
// handler to each (services/gateway/src/app/v1Routes.ts), the OpenAPI document is generated from them and the
// typed client (packages/client) calls them; a new endpoint is one entry here plus its handler there.
import { CookieJar } from "./CookieJars.ts"
import { COOKIES_BODY_LIMIT_BYTES, CookiePlatform, CookiesUpload, DownloadRequest, ResolveRequest } from "./Requests.ts"
import { Health, Job, JobAccepted, Media, Platform } from "./Responses.ts"
import { WebhookDelivery, WebhookRedelivery } from "./WebhookDeliveries.ts"
import { MAX_USAGE_DAYS, Usage, UsageDate } from "./Usage.ts"
import { Batch, CreateBatchRequest } from "./Batches.ts"
import { CreateSubscriptionRequest, SubscriptionBody } from "./Subscriptions.ts"
import { ERROR_CODE_FILTER, JOB_STATUS_FILTER, LAST_EVENT_ID, PLATFORM_FILTER } from "./JobChangeFilters.ts"
import { BatchId, DeliveryId, DestinationId, JobId, SubscriptionId } from "../ids/Ids.ts"
import { CreateDestinationRequest, DestinationBody, DestinationTestResult } from "./Destinations.ts"
import { Schema } from "effect"
import { type Endpoint, keyed, type Parameter, PUBLIC } from "./Endpoint.ts"

/** A file key: `jobs/<projectId>/<jobId>/<file name>`, the name at most 129 characters (safeFileName); thumbnails are shorter. */
const MAX_FILE_KEY_LENGTH = 1024

const JOB_ID: Parameter = {
  name: "jobId",
  in: "path",
  required: true,
  description: "job_id from POST /media/download.",
  schema: JobId
}
const SUBSCRIPTION_ID: Parameter = {
  name: "subscriptionId",
  in: "path",
  required: true,
  description: "id from POST /subscriptions.",
  schema: SubscriptionId
}
const DELIVERY_ID: Parameter = {
  name: "deliveryId",
  in: "path",
  required: true,
  description: "delivery_id from GET /webhooks/deliveries (also the MDS-Delivery-Id header).",
  schema: DeliveryId
}
const DESTINATION_ID: Parameter = {
  name: "destinationId",
  in: "path",
  required: true,
  description: "id from POST /destinations or GET /destinations.",
  schema: DestinationId
}
const BATCH_ID: Parameter = { name: "batchId", in: "path", required: true, description: "id from POST /batches.", schema: BatchId }

export const V1 = {
  getHealth: {
    method: "GET",
    path: "/v1/health",
    tag: "Service",
    summary: "Service health",
    description: "ok while the gateway's NATS connection answers a ping within 1 s.",
    access: PUBLIC,
    success: { status: 200, description: "Healthy.", data: Health },
    alternatives: [{ status: 503, description: "The gateway runs but NATS does not answer.", data: Health }],
    errors: []
  },
  getOpenApi: {
    method: "GET",
    path: "/v1/openapi.json",
    tag: "Service",
    summary: "This OpenAPI 3.1 document",
    access: PUBLIC,
    success: { status: 200, description: "The document (not wrapped in data).", data: "json" },
    errors: []
  },
  listPlatforms: {
    method: "GET",
    path: "/v1/platforms",
    tag: "Media",
    summary: "Supported platforms",
    description: "The curated platforms the installed extractor can handle, plus generic.",
    access: keyed(null),
    success: {
      status: 200,
      description: "The platform list.",
      data: Schema.Array(Platform),
      headers: { "Cache-Control": "public, max-age=300" }
    },
    errors: ["service_unavailable"]
  },
  resolveMedia: {
    method: "POST",
    path: "/v1/media/resolve",
    tag: "Media",
    summary: "Resolve a media URL to its metadata and formats",
    access: keyed("media:resolve"),
    requestBody: ResolveRequest,
    success: { status: 200, description: "The resolved media.", data: Media },
    errors: [
      "invalid_request",
      "unsupported_platform",
      "url_not_allowed",
      "media_unavailable",
      "extraction_failed",
      "extraction_timeout",
      "platform_paused",
      "service_unavailable"
    ]
  },
  downloadMedia: {
    method: "POST",
    path: "/v1/media/download",
    tag: "Jobs",
    summary: "Queue a download job",
    description: "Send format plus exactly one of media_id (from resolve) and url.",
    access: keyed("media:download"),
    parameters: [
      {
        name: "Idempotency-Key",
        in: "header",
        required: false,
        description:
          "Extension: 1-255 visible ASCII characters. The same key and body answer with the same job " +
          "(header Idempotent-Replayed: true) for the job's lifetime; another body with 409 idempotency_key_reused.",
        schema: Schema.String.check(Schema.isPattern(/^[\x21-\x7e]{1,255}$/u))
      }
    ],
    requestBody: DownloadRequest,
    success: { status: 202, description: "The job is queued; poll GET /jobs/{jobId} every 2-5 s.", data: JobAccepted },
    errors: [
      "idempotency_key_reused",
      "idempotency_key_in_use",
      "invalid_request",
      "media_not_found",
      "format_unavailable",
      "invalid_options",
      "invalid_path_template",
      "destination_not_found",
      "section_out_of_range",
      "subtitles_unavailable",
      "unsupported_platform",
      "url_not_allowed",
      "concurrency_limit_exceeded",
      "quota_exceeded",
      "platform_paused",
      "service_unavailable"
    ]
  },
  getJob: {
    method: "GET",
    path: "/v1/jobs/:jobId",
    tag: "Jobs",
    summary: "A job's status, progress and result",
    description: "Poll every 2 to 5 seconds, not faster.",
    access: keyed(null),
    parameters: [JOB_ID],
    success: { status: 200, description: "The job.", data: Job },
    errors: ["job_not_found", "polling_too_fast", "service_unavailable"]
  },
  cancelJob: {
    method: "DELETE",
    path: "/v1/jobs/:jobId",
    tag: "Jobs",
    summary: "Extension: cancel a queued or processing job",
    description:
      "The worker stops at once (yt-dlp and ffmpeg are killed, partial files removed) and the project's " +
      "slot frees. The answer is the job as GET /jobs/{jobId} shows it: failed, error.code canceled. Canceling a " +
      "canceled job answers the same again; a job that completed or failed otherwise is 409 job_already_finished.",
    access: keyed("media:download"),
    parameters: [JOB_ID],
    success: { status: 200, description: "The canceled job.", data: Job },
    errors: ["job_not_found", "job_already_finished", "service_unavailable"]
  },
  retryJob: {
    method: "POST",
    path: "/v1/jobs/:jobId/retry",
    tag: "Jobs",
    summary: "Extension: queue a failed job again whose failure was retryable",
    description:
      "A new try of the same job (same id, options and lifetime): it answers queued, then processing again, and its " +
      "runs go on counting attempts. Only a failed job whose error.retryable is true, within its lifetime; it takes " +
      "one of the project's job slots like a new download. Failed jobs are also retried automatically " +
      "(JOB_AUTO_RETRIES times, with backoff); a client's retry counts among those.",
    access: keyed("media:download"),
    parameters: [JOB_ID],
    success: { status: 202, description: "The job, queued again.", data: Job },
    errors: [
      "job_not_found",
      "job_not_failed",
      "job_not_retryable",
      "job_canceled",
      "concurrency_limit_exceeded",
      "quota_exceeded",
      "service_unavailable"
    ]
  },
  stopJob: {
    method: "POST",
    path: "/v1/jobs/:jobId/stop",
    tag: "Jobs",
    summary: "Extension: stop a live recording and keep what it recorded",
    description:
      "Only a job that is recording a live stream (its `recording` is present and not ended). The worker ends yt-dlp " +
      "so that it finalizes the file: the job then completes with the recording so far and its download_url, like " +
      "any job (recording.ended: stopped). Stopping twice answers the same again. DELETE /jobs/{jobId} cancels " +
      "instead and keeps nothing. A job that is not recording is 409 job_not_live.",
    access: keyed("media:download"),
    parameters: [JOB_ID],
    success: { status: 202, description: "The job, still processing while its recording is finalized.", data: Job },
    errors: ["job_not_found", "job_not_live", "service_unavailable"]
  },
  createBatch: {
    method: "POST",
    path: "/v1/batches",
    tag: "Batches",
    summary: "Extension: download a format for chosen entries of a playlist",
    description:
      "The service feeds the entries into the project's job slots as they free (the concurrency limit holds); " +
      "follow them with GET /batches/{batchId}.",
    access: keyed("media:download"),
    requestBody: CreateBatchRequest,
    success: { status: 202, description: "The batch, running.", data: Batch },
    errors: [
      "invalid_request",
      "media_not_found",
      "format_unavailable",
      "invalid_options",
      "invalid_path_template",
      "destination_not_found",
      "quota_exceeded",
      "service_unavailable"
    ]
  },
  getBatch: {
    method: "GET",
    path: "/v1/batches/:batchId",
    tag: "Batches",
    summary: "Extension: a batch's progress and each entry's job",
    access: keyed(null),
    parameters: [BATCH_ID],
    success: { status: 200, description: "The batch.", data: Batch },
    errors: ["batch_not_found", "service_unavailable"]
  },
  cancelBatch: {
    method: "DELETE",
    path: "/v1/batches/:batchId",
    tag: "Batches",
    summary: "Extension: cancel a batch",
    description: "No further entry starts; the entries' queued or processing jobs are canceled.",
    access: keyed("media:download"),
    parameters: [BATCH_ID],
    success: { status: 200, description: "The canceled batch.", data: Batch },
    errors: ["batch_not_found", "batch_already_finished", "service_unavailable"]
  },
  createSubscription: {
    method: "POST",
    path: "/v1/subscriptions",
    tag: "Subscriptions",
    summary: "Extension: follow a playlist, channel or feed and download what is new",
    description:
      "The URL is resolved as a playlist once (with the project's cookies); its first check runs at once. Each check " +
      "queues the new entries that pass the filters as one batch (GET /batches/{batchId}); an entry any subscription of " +
      "the project queued before is never queued again.",
    access: keyed("media:download"),
    requestBody: CreateSubscriptionRequest,
    success: { status: 201, description: "The subscription.", data: SubscriptionBody },
    errors: [
      "invalid_request",
      "invalid_options",
      "invalid_path_template",
      "destination_not_found",
      "format_unavailable",
      "not_a_playlist",
      "subscription_limit_reached",
      "unsupported_platform",
      "url_not_allowed",
      "media_unavailable",
      "extraction_failed",
      "extraction_timeout",
      "service_unavailable"
    ]
  },
  listSubscriptions: {
    method: "GET",
    path: "/v1/subscriptions",
    tag: "Subscriptions",
    summary: "Extension: the project's subscriptions",
    access: keyed(null),
    success: { status: 200, description: "Every subscription of the project, oldest first.", data: Schema.Array(SubscriptionBody) },
    errors: ["service_unavailable"]
  },
  getSubscription: {
    method: "GET",
    path: "/v1/subscriptions/:subscriptionId",
    tag: "Subscriptions",
    summary: "Extension: a subscription, its last check and its next",
    access: keyed(null),
    parameters: [SUBSCRIPTION_ID],
    success: { status: 200, description: "The subscription.", data: SubscriptionBody },
    errors: ["subscription_not_found", "service_unavailable"]
  },
  pauseSubscription: {
    method: "POST",
    path: "/v1/subscriptions/:subscriptionId/pause",
    tag: "Subscriptions",
    summary: "Extension: pause a subscription's checks",
    description: "Pausing a paused subscription answers the same.",
    access: keyed("media:download"),
    parameters: [SUBSCRIPTION_ID],
    success: { status: 200, description: "The paused subscription.", data: SubscriptionBody },
    errors: ["subscription_not_found", "service_unavailable"]
  },
  resumeSubscription: {
    method: "POST",
    path: "/v1/subscriptions/:subscriptionId/resume",
    tag: "Subscriptions",
    summary: "Extension: resume a subscription's checks",
    description: "A check missed while paused runs at once, once.",
    access: keyed("media:download"),
    parameters: [SUBSCRIPTION_ID],
    success: { status: 200, description: "The active subscription.", data: SubscriptionBody },
    errors: ["subscription_not_found", "service_unavailable"]
  },
  checkSubscription: {
    method: "POST",
    path: "/v1/subscriptions/:subscriptionId/check",
    tag: "Subscriptions",
    summary: "Extension: check a subscription now",
    description: "The check runs at once; follow its outcome in last_check and last_error.",
    access: keyed("media:download"),
    parameters: [SUBSCRIPTION_ID],
    success: { status: 202, description: "The subscription, its check due now.", data: SubscriptionBody },
    errors: ["subscription_not_found", "subscription_paused", "service_unavailable"]
  },
  removeSubscription: {
    method: "DELETE",
    path: "/v1/subscriptions/:subscriptionId",
    tag: "Subscriptions",
    summary: "Extension: remove a subscription",
    description: "No further check runs; entries already queued download. The project's archive keeps its entries.",
    access: keyed("media:download"),
    parameters: [SUBSCRIPTION_ID],
    success: { status: 200, description: "Removed.", data: Schema.Struct({ id: Schema.String, removed: Schema.Boolean }) },
    errors: ["subscription_not_found", "service_unavailable"]
  },
  streamJobEvents: {
    method: "GET",
    path: "/v1/jobs/:jobId/events",
    tag: "Jobs",
    summary: "Extension: the job's changes as server-sent events",
    description:
      "A `job` event (data: the Job object of GET /jobs/{jobId}, id: its event sequence) now and after every " +
      "change of status or progress; the stream ends after the job completes or fails. Comment lines every 15 s keep it open.",
    access: keyed(null),
    parameters: [JOB_ID],
    success: { status: 200, description: "The event stream.", data: "events" },
    errors: ["job_not_found", "too_many_streams", "service_unavailable"]
  },
  streamProjectJobEvents: {
    method: "GET",
    path: "/v1/jobs/events",
    tag: "Jobs",
    summary: "Extension: the changes of all the project's jobs as server-sent events",
    description:
      "A `job` event (data: the Job object of GET /jobs/{jobId}, id: the stream position) after every change of " +
      "status or progress of a job of the key's project that passes the filters, from now on; a job that stops " +
      "passing them is sent once more, with the state that no longer does. With Last-Event-ID (sent by a reconnecting " +
      "EventSource) it resumes after that event. The stream stays open; comment lines every 15 s keep it so.",
    access: keyed(null),
    parameters: [
      { name: "status", in: "query", required: false, description: "Only jobs with this status.", schema: JOB_STATUS_FILTER },
      { name: "platform", in: "query", required: false, description: "Only jobs of this platform id.", schema: PLATFORM_FILTER },
      {
        name: "error_code",
        in: "query",
        required: false,
        description: "Only failed jobs with this error code.",
        schema: ERROR_CODE_FILTER
      },
      {
        name: "Last-Event-ID",
        in: "header",
        required: false,
        description: "The id of the last event received: the stream resumes after it.",
        schema: LAST_EVENT_ID
      }
    ],
    success: { status: 200, description: "The event stream.", data: "events" },
    errors: ["invalid_request", "too_many_streams", "service_unavailable"]
  },
  getUsage: {
    method: "GET",
    path: "/v1/usage",
    tag: "Usage",
    summary: "Extension: the project's jobs and downloaded bytes per day, and its quotas",
    description:
      "Per UTC day of the range: jobs (by the day they were queued) by status, failures by error code, bytes of " +
      "completed jobs, each per platform; the most frequent error codes with example jobs; and the project's quotas " +
      "with what is used of them now. Any key of the project may read it.",
    access: keyed(null),
    parameters: [
      {
        name: "from",
        in: "query",
        required: false,
        description: "First day, YYYY-MM-DD (UTC); default 29 days before `to`.",
        schema: UsageDate
      },
      {
        name: "to",
        in: "query",
        required: false,
        description: `Last day, YYYY-MM-DD (UTC); default today. The range is at most ${MAX_USAGE_DAYS} days.`,
        schema: UsageDate
      }
    ],
    success: { status: 200, description: "The usage.", data: Usage },
    errors: ["invalid_request", "invalid_date_range", "service_unavailable"]
  },
  listWebhookDeliveries: {
    method: "GET",
    path: "/v1/webhooks/deliveries",
    tag: "Webhooks",
    summary: "Extension: the project's latest webhook delivery attempts, newest first",
    description:
      "Endpoints are set with the admin CLI (webhook set); every attempt to POST an event (job.completed, job.failed, subscription.entries_queued, subscription.failing) is logged.",
    access: keyed(null),
    parameters: [
      {
        name: "limit",
        in: "query",
        required: false,
        description: "How many attempts (1-1000, default 100).",
        schema: Schema.String.check(Schema.isPattern(/^(1000|[1-9][0-9]{0,2})$/u))
      }
    ],
    success: { status: 200, description: "The attempts.", data: Schema.Array(WebhookDelivery) },
    errors: ["invalid_request", "service_unavailable"]
  },
  redeliverWebhookDelivery: {
    method: "POST",
    path: "/v1/webhooks/deliveries/:deliveryId/redeliver",
    tag: "Webhooks",
    summary: "Extension: send a job's webhook delivery again",
    description:
      "For a delivery that ended (delivered, or given up after its retries): the same event with the same " +
      "MDS-Delivery-Id, the job as that event's end left it, to the endpoint as configured now, retried like a first " +
      "delivery; its attempts show in GET /webhooks/deliveries. Asking again before it was sent asks once. The dashboard's " +
      "Redeliver button does the same.",
    access: keyed("media:download"),
    parameters: [DELIVERY_ID],
    success: { status: 202, description: "The redelivery is asked for; it is sent within moments.", data: WebhookRedelivery },
    errors: ["invalid_request", "delivery_not_found", "delivery_pending", "service_unavailable"]
  },
  listCookies: {
    method: "GET",
    path: "/v1/cookies",
    tag: "Cookies",
    summary: "Extension: the project's stored cookie files (metadata only)",
    description: "One entry per platform: cookie domains, count, earliest expiry, when uploaded or rotated. Cookies are never returned.",
    access: keyed("media:download"),
    success: { status: 200, description: "The files' metadata.", data: Schema.Array(CookieJar) },
    errors: ["service_unavailable"]
  },
  uploadCookies: {
    method: "POST",
    path: "/v1/cookies",
    tag: "Cookies",
    summary: "Extension: store a Netscape cookies.txt for one platform",
    description:
      "Replaces the project's file for the platform. Stored encrypted; used (a copy per run) by this project's " +
      "resolves and downloads of that platform only. Media resolved with them is this project's alone.",
    access: keyed("media:download"),
    requestBody: CookiesUpload,
    bodyLimitBytes: COOKIES_BODY_LIMIT_BYTES,
    success: { status: 200, description: "The stored file's metadata.", data: CookieJar },
    errors: ["invalid_request", "invalid_cookie_file", "service_unavailable"]
  },
  removeCookies: {
    method: "DELETE",
    path: "/v1/cookies/:platform",
    tag: "Cookies",
    summary: "Extension: remove the project's cookie file for a platform",
    access: keyed("media:download"),
    parameters: [{ name: "platform", in: "path", required: true, description: "The platform id.", schema: CookiePlatform }],
    success: { status: 200, description: "Removed.", data: Schema.Struct({ platform: Schema.String, removed: Schema.Boolean }) },
    errors: ["invalid_request", "service_unavailable"]
  },
  createDestination: {
    method: "POST",
    path: "/v1/destinations",
    tag: "Destinations",
    summary: "Extension: add an S3-compatible bucket the project's files can be delivered to",
    description:
      "The credentials are stored encrypted and never shown again (answers show at most the access key id's last 4 " +
      "characters). Only type s3: a folder on the server is given to a project by the operator. The endpoint goes " +
      "through the egress guard. Try it with POST /destinations/{destinationId}/test.",
    access: keyed("media:download"),
    requestBody: CreateDestinationRequest,
    success: { status: 201, description: "The destination.", data: DestinationBody },
    errors: ["invalid_request", "url_not_allowed", "destination_limit_reached", "service_unavailable"]
  },
  listDestinations: {
    method: "GET",
    path: "/v1/destinations",
    tag: "Destinations",
    summary: "Extension: the project's destinations",
    description: "Its S3 destinations and the folders the operator gave it, oldest first; never a secret.",
    access: keyed("media:download"),
    success: { status: 200, description: "Every destination of the project.", data: Schema.Array(DestinationBody) },
    errors: ["service_unavailable"]
  },
  getDestination: {
    method: "GET",
    path: "/v1/destinations/:destinationId",
    tag: "Destinations",
    summary: "Extension: a destination",
    access: keyed("media:download"),
    parameters: [DESTINATION_ID],
    success: { status: 200, description: "The destination.", data: DestinationBody },
    errors: ["destination_not_found", "service_unavailable"]
  },
  removeDestination: {
    method: "DELETE",
    path: "/v1/destinations/:destinationId",
    tag: "Destinations",
    summary: "Extension: remove a destination",
    description: "Nothing more is delivered to it; files already there stay. A folder the operator gave can be removed too.",
    access: keyed("media:download"),
    parameters: [DESTINATION_ID],
    success: { status: 200, description: "Removed.", data: Schema.Struct({ id: Schema.String, removed: Schema.Boolean }) },
    errors: ["destination_not_found", "service_unavailable"]
  },
  testDestination: {
    method: "POST",
    path: "/v1/destinations/:destinationId/test",
    tag: "Destinations",
    summary: "Extension: write and remove a probe object to see whether the destination works",
    description:
      "Always 200 for a destination of the project: ok true, or the step that failed (connect, write, check, remove) " +
      "and a code: destination_denied, destination_unreachable, destination_missing or destination_failed.",
    access: keyed("media:download"),
    parameters: [DESTINATION_ID],
    success: { status: 200, description: "What the probe found.", data: DestinationTestResult },
    errors: ["destination_not_found", "service_unavailable"]
  },
  downloadFile: {
    method: "GET",
    path: "/v1/files/*",
    tag: "Jobs",
    summary: "Download a job's file through its signed link",
    description: "The link in result.download_url; the signature is the credential (no API key). HEAD gives the headers only.",
    access: PUBLIC,
    parameters: [
      {
        name: "key",
        in: "path",
        required: true,
        description: "The file key from the signed link.",
        schema: Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(MAX_FILE_KEY_LENGTH))
      },
      {
        name: "expires",
        in: "query",
        required: true,
        description: "Expiry, Unix seconds.",
        schema: Schema.String.check(Schema.isPattern(/^[0-9]{1,12}$/u))
      },
      {
        name: "signature",
        in: "query",
        required: true,
        description: "The link's signature (HMAC-SHA256, base64url).",
        schema: Schema.String.check(Schema.isPattern(/^[A-Za-z0-9_-]{43}$/u))
      }
    ],
    success: {
      status: 200,
      description: "The file, with Content-Type, Content-Length and Content-Disposition: attachment.",
      data: "binary"
    },
    errors: ["invalid_signature", "link_expired", "not_found"]
  }
} as const satisfies Readonly<Record<string, Endpoint>>

/** The operationId of each endpoint is its key in V1. */
export type OperationId = keyof typeof V1

export const v1Endpoints = Object.entries(V1) as ReadonlyArray<readonly [OperationId, Endpoint]>
