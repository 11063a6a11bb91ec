// What each /v1 route accepts, answers and may fail with: the description the OpenAPI document is generated from.
import type { ApiErrorCode } from "@mds/shared/api/ErrorCodes"
import { DownloadRequest, ResolveRequest } from "@mds/shared/api/Requests"
import { Health, Job, JobAccepted, Media, Platform } from "@mds/shared/api/Responses"
import { WebhookDelivery } from "@mds/shared/api/WebhookDeliveries"
import type { Scope } from "@mds/shared/domain/account/AccountEvent"
import { Schema } from "effect"

export type Access = { readonly _tag: "Public" } | { readonly _tag: "Keyed"; readonly scope: Scope | null }

export interface Parameter {
  readonly name: string
  readonly in: "path" | "query" | "header"
  readonly required: boolean
  readonly description: string
  readonly schema: Schema.Top
}

export interface Operation {
  readonly method: "GET" | "POST"
  /** The path as the route table writes it (`:param`, trailing `*`). */
  readonly routePath: string
  readonly operationId: string
  readonly tag: string
  readonly summary: string
  readonly description?: string
  readonly access: Access
  readonly parameters?: ReadonlyArray<Parameter>
  readonly requestBody?: Schema.Top
  readonly success: {
    readonly status: number
    readonly description: string
    /**
     * The payload inside `{"data": ...}`; `json` for raw JSON, `binary` for a file stream, `html` for a page,
     * `events` for a server-sent event stream.
     */
    readonly data: Schema.Top | "json" | "binary" | "html" | "events"
    readonly headers?: Readonly<Record<string, string>>
  }
  /** Additional documented answers that are not errors (e.g. the degraded health report). */
  readonly alternatives?: ReadonlyArray<{ readonly status: number; readonly description: string; readonly data: Schema.Top }>
  /** Errors of this operation beyond those every keyed route, POST route or route at all can give. */
  readonly errors: ReadonlyArray<ApiErrorCode>
}

const keyed = (scope: Scope | null): Access => ({ _tag: "Keyed", scope })
const PUBLIC: Access = { _tag: "Public" }

export const v1Operations: ReadonlyArray<Operation> = [
  {
    method: "GET",
    routePath: "/v1/health",
    operationId: "getHealth",
    tag: "Service",
    summary: "Service health",
    description: "ok while the gateway's NATS connection answers a ping within 1 s.",
    access: PUBLIC,
    success: { status: 200, description: "Healthy.", data: Health },
    alternatives: [{ status: 503, description: "The gateway runs but NATS does not answer.", data: Health }],
    errors: []
  },
  {
    method: "GET",
    routePath: "/v1/openapi.json",
    operationId: "getOpenApi",
    tag: "Service",
    summary: "This OpenAPI 3.1 document",
    access: PUBLIC,
    success: { status: 200, description: "The document (not wrapped in data).", data: "json" },
    errors: []
  },
  {
    method: "GET",
    routePath: "/v1/platforms",
    operationId: "listPlatforms",
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
  {
    method: "POST",
    routePath: "/v1/media/resolve",
    operationId: "resolveMedia",
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
  {
    method: "POST",
    routePath: "/v1/media/download",
    operationId: "downloadMedia",
    tag: "Jobs",
    summary: "Queue a download job",
    description: "Send format plus exactly one of media_id (from resolve) and url.",
    access: keyed("media:download"),
    parameters: [{
      name: "Idempotency-Key",
      in: "header",
      required: false,
      description: "Extension: 1-255 visible ASCII characters. The same key and body answer with the same job " +
        "(header Idempotent-Replayed: true) for the job's lifetime; another body with 409 idempotency_key_reused.",
      schema: Schema.String.check(Schema.isPattern(/^[\x21-\x7e]{1,255}$/u))
    }],
    requestBody: DownloadRequest,
    success: { status: 202, description: "The job is queued; poll GET /jobs/{jobId} every 2-5 s.", data: JobAccepted },
    errors: [
      "idempotency_key_reused",
      "idempotency_key_in_use",
      "invalid_request",
      "media_not_found",
      "format_unavailable",
      "section_out_of_range",
      "unsupported_platform",
      "url_not_allowed",
      "concurrency_limit_exceeded",
      "platform_paused",
      "service_unavailable"
    ]
  },
  {
    method: "GET",
    routePath: "/v1/jobs/:jobId",
    operationId: "getJob",
    tag: "Jobs",
    summary: "A job's status, progress and result",
    description: "Poll every 2 to 5 seconds, not faster.",
    access: keyed(null),
    parameters: [{ name: "jobId", in: "path", required: true, description: "job_id from POST /media/download.", schema: Schema.String }],
    success: { status: 200, description: "The job.", data: Job },
    errors: ["job_not_found", "polling_too_fast", "service_unavailable"]
  },
  {
    method: "GET",
    routePath: "/v1/jobs/:jobId/events",
    operationId: "streamJobEvents",
    tag: "Jobs",
    summary: "Extension: the job's changes as server-sent events",
    description: "A `job` event (data: the Job object of GET /jobs/{jobId}, id: its event sequence) now and after every " +
      "change of status or progress; the stream ends after the job completes or fails. Comment lines every 15 s keep it open.",
    access: keyed(null),
    parameters: [{ name: "jobId", in: "path", required: true, description: "job_id from POST /media/download.", schema: Schema.String }],
    success: { status: 200, description: "The event stream.", data: "events" },
    errors: ["job_not_found", "service_unavailable"]
  },
  {
    method: "GET",
    routePath: "/v1/webhooks/deliveries",
    operationId: "listWebhookDeliveries",
    tag: "Webhooks",
    summary: "Extension: the project's latest webhook delivery attempts, newest first",
    description: "Endpoints are set with the admin CLI (webhook set); every attempt to POST job.completed/job.failed is logged.",
    access: keyed(null),
    parameters: [{
      name: "limit",
      in: "query",
      required: false,
      description: "How many attempts (1-1000, default 100).",
      schema: Schema.String.check(Schema.isPattern(/^(1000|[1-9][0-9]{0,2})$/u))
    }],
    success: { status: 200, description: "The attempts.", data: Schema.Array(WebhookDelivery) },
    errors: ["invalid_request", "service_unavailable"]
  },
  {
    method: "GET",
    routePath: "/v1/files/*",
    operationId: "downloadFile",
    tag: "Jobs",
    summary: "Download a job's file through its signed link",
    description: "The link in result.download_url; the signature is the credential (no API key). HEAD gives the headers only.",
    access: PUBLIC,
    parameters: [
      { name: "key", in: "path", required: true, description: "The file key from the signed link.", schema: Schema.String },
      { name: "expires", in: "query", required: true, description: "Expiry, Unix seconds.", schema: Schema.String },
      { name: "signature", in: "query", required: true, description: "The link's signature.", schema: Schema.String }
    ],
    success: {
      status: 200,
      description: "The file, with Content-Type, Content-Length and Content-Disposition: attachment.",
      data: "binary"
    },
    errors: ["invalid_signature", "link_expired", "not_found"]
  }
]
