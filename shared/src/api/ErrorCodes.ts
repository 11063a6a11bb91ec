// Every /v1 error code with its HTTP status and meaning: the catalogue the error mapping, the OpenAPI document and clients share.

/** Code -> status and the condition a client can rely on. Adding a code here is the only way to add one to the API. */
export const errorCatalogue = {
  invalid_json: { status: 400, description: "The body is not valid JSON (or is empty)." },
  invalid_request: { status: 400, description: "The body or a parameter does not match the endpoint; the message names the field." },
  missing_api_key: { status: 401, description: "No API key in the headers (a key in the query string is never read)." },
  invalid_api_key: { status: 401, description: "Malformed or unknown key, non-Bearer Authorization, or two different keys." },
  revoked_api_key: { status: 401, description: "The key was revoked." },
  insufficient_scope: { status: 403, description: "The key lacks the route's scope (named in the message)." },
  invalid_signature: { status: 403, description: "The download link's signature or expiry is missing or altered." },
  not_found: { status: 404, description: "No such route, or the linked file no longer exists." },
  job_not_found: { status: 404, description: "Job unknown, of another project, or expired." },
  batch_not_found: { status: 404, description: "Extension: batch unknown, of another project, or expired." },
  subscription_not_found: { status: 404, description: "Extension: subscription unknown, of another project, or removed." },
  destination_not_found: { status: 404, description: "Extension: destination unknown, of another project, or removed." },
  delivery_not_found: {
    status: 404,
    description:
      "Extension: webhook delivery unknown, of another project, no longer in the delivery log, or about a subscription " +
      "(only a job's delivery can be sent again)."
  },
  media_not_found: { status: 404, description: "Media id unknown, malformed or expired (resolve again)." },
  method_not_allowed: { status: 405, description: "Known path, wrong method; the Allow header lists the methods." },
  idempotency_key_reused: {
    status: 409,
    description: "Extension: the Idempotency-Key was already used with a different request body."
  },
  idempotency_key_in_use: {
    status: 409,
    description: "Extension: a request with this Idempotency-Key is still being carried out; retry shortly."
  },
  job_already_finished: {
    status: 409,
    description: "Extension: DELETE /jobs/{jobId} of a job that already completed or failed (canceling twice is not this)."
  },
  job_not_live: {
    status: 409,
    description:
      "Extension: POST /jobs/{jobId}/stop of a job that is not recording a live stream (queued, ended, or its media is not live)."
  },
  job_not_failed: {
    status: 409,
    description: "Extension: POST /jobs/{jobId}/retry of a job that is queued, processing or completed (only a failed job is retried)."
  },
  job_not_retryable: {
    status: 409,
    description:
      "Extension: POST /jobs/{jobId}/retry of a job whose failure is not retryable (error.retryable false: the media or the " +
      "request is the cause, trying again would fail the same way)."
  },
  job_canceled: {
    status: 409,
    description: "Extension: POST /jobs/{jobId}/retry of a job a client canceled; queue the download again instead."
  },
  batch_already_finished: {
    status: 409,
    description: "Extension: DELETE /batches/{batchId} of a batch whose every entry already ended."
  },
  delivery_pending: {
    status: 409,
    description: "Extension: redelivery of a webhook delivery whose retries are still going (outcome will_retry); ask again once it ended."
  },
  subscription_paused: { status: 409, description: "Extension: check now of a paused subscription; resume it first." },
  link_expired: { status: 410, description: "The download link is past its expiry." },
  payload_too_large: {
    status: 413,
    description: "The body is larger than 16 KiB (POST /cookies: 97 KiB, the longest cookie file its schema admits, escaped)."
  },
  unsupported_media_type: { status: 415, description: "A POST whose Content-Type is not application/json." },
  unsupported_platform: { status: 422, description: "Not a supported platform, a shortened link, or YouTube." },
  url_not_allowed: {
    status: 422,
    description: "The URL targets a private, loopback or reserved address, carries credentials, or names a host that cannot be parsed."
  },
  media_unavailable: { status: 422, description: "The media is private, removed, geo-blocked or login-only." },
  not_a_playlist: {
    status: 422,
    description: "Extension: a subscription's URL resolves as one media, not as a playlist, channel or feed."
  },
  destination_limit_reached: {
    status: 429,
    description: "Extension: the project has as many destinations as it may (DESTINATIONS_PER_PROJECT, 20 by default); remove one first."
  },
  subscription_limit_reached: {
    status: 429,
    description:
      "Extension: the project has as many live subscriptions as it may (SUBSCRIPTIONS_PER_PROJECT, 100 by default, or the " +
      "project's own limit set with the admin CLI); remove one first."
  },
  format_unavailable: { status: 422, description: "The format is not one of the media's formats, or not a valid format id." },
  invalid_options: {
    status: 422,
    description:
      "Extension: download fields that are each valid but do not fit together or with the format (e.g. " +
      "audio_bitrate with a video format, a section whose end is not after its start), or a body that matches the " +
      "OpenAPI document but fails a rule it cannot show (a subscription's min_duration over its max_duration, a " +
      "published_after on no calendar day); the message names the field."
  },
  invalid_path_template: {
    status: 422,
    description:
      "Extension: destination.path is no usable template: an unknown field, an unbalanced brace, an absolute path, a " +
      "'..' or '.' folder, a character no file name may hold, or too long or deep; the message gives the reason."
  },
  invalid_date_range: {
    status: 422,
    description:
      "Extension: from and to are written YYYY-MM-DD but one is no calendar day (2026-02-30), from is after to, or " +
      "the range spans more than 366 days; the message names the parameter."
  },
  section_out_of_range: {
    status: 422,
    description: "Extension: the clip section starts at or after the end of the media, or ends after it."
  },
  subtitles_unavailable: {
    status: 422,
    description:
      "Extension: a subtitle language (subtitles field or subtitles_<lang> format) the media does not offer; " +
      "the message lists those it does."
  },
  invalid_cookie_file: {
    status: 422,
    description: "Extension: cookies_txt is not a Netscape cookies file (the message names the first bad line, never its content)."
  },
  concurrency_limit_exceeded: { status: 429, description: "The project already has the maximum number of jobs queued or processing." },
  quota_exceeded: {
    status: 429,
    description:
      "Extension: a quota of the project (jobs per UTC day, downloaded bytes per UTC month) is used up; Retry-After is " +
      'the reset, and RateLimit-Policy names the quota (name="jobs_per_day" or "bytes_per_month").'
  },
  rate_limit_exceeded: {
    status: 429,
    description:
      "The API key used up its requests per minute, or too many invalid keys came from this address or with this key prefix; wait for Retry-After."
  },
  polling_too_fast: { status: 429, description: "The job was polled less than 2 s ago by this key; wait for Retry-After." },
  too_many_streams: {
    status: 429,
    description:
      "Extension: the project already holds the maximum number of server-sent event streams open on this gateway " +
      "(EVENT_STREAMS_PER_PROJECT); close one, or retry after Retry-After."
  },
  headers_too_large: { status: 431, description: "The request headers are larger than 16 KiB in all." },
  internal_error: { status: 500, description: "An unexpected failure; report the request_id." },
  extraction_failed: { status: 502, description: "The extractor could not read the media page." },
  platform_paused: {
    status: 503,
    description:
      "Extension: the platform is paused after repeated blocks (rate limits, bot checks) until the time in " +
      "the message and GET /platforms; Retry-After says when."
  },
  service_unavailable: {
    status: 503,
    description: "A dependency (NATS, the extractor fleet, the platform catalog) is unavailable; retry with backoff."
  },
  extraction_timeout: { status: 504, description: "Resolving the media took too long." }
} as const satisfies Record<string, { readonly status: number; readonly description: string }>

export type ApiErrorCode = keyof typeof errorCatalogue

export const apiErrorCodes = Object.keys(errorCatalogue) as ReadonlyArray<ApiErrorCode>
