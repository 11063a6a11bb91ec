// The API's refusal of a dashboard action (its /v1 code and message, one mapping) with a headline a person understands.
import type { ApiErrorCode } from "@mds/shared/api/ErrorCodes"
import { Effect } from "effect"
import { type ApiError, type ApiFailure, internalError, isServerSide, toApiError } from "../http/ErrorMapping.ts"
import type { DashboardReply } from "./DashboardRoute.ts"
import type { Html } from "./html/Html.ts"

export interface Refusal {
  /** The /v1 answer's status: the page answers with it too. */
  readonly status: number
  readonly code: ApiErrorCode
  /** What happened, in a person's words. */
  readonly headline: string
  /** The API's own message, as a client of /v1 reads it. */
  readonly message: string
  /** From Retry-After: how long until trying again can work (busy slots, a quota, a paused platform). */
  readonly retryAfterSeconds: number | null
}

const HEADLINES: Partial<Record<ApiErrorCode, string>> = {
  invalid_request: "Check the link and the options.",
  unsupported_platform: "This site is not supported.",
  url_not_allowed: "This address may not be downloaded from.",
  media_unavailable: "This media cannot be downloaded: it is private, removed, blocked here or needs a sign-in.",
  media_not_found: "This lookup has expired: look the link up again.",
  format_unavailable: "This format is not available for this media.",
  invalid_options: "These options do not fit together or with the format.",
  invalid_path_template: "The destination path template cannot be used.",
  section_out_of_range: "The clip lies outside the media.",
  subtitles_unavailable: "These subtitles are not available.",
  concurrency_limit_exceeded: "The project's download slots are all busy.",
  quota_exceeded: "The project's quota is used up.",
  rate_limit_exceeded: "Too many requests in a minute.",
  too_many_streams: "Too many live views of this project are open.",
  extraction_failed: "The site's page could not be read.",
  extraction_timeout: "The site took too long to answer.",
  platform_paused: "Downloads from this site are paused for a while.",
  service_unavailable: "The service is unavailable for a moment.",
  idempotency_key_reused: "This form already queued another download: look the link up again.",
  idempotency_key_in_use: "This download is being queued already.",
  job_not_found: "This job does not exist any more.",
  job_already_finished: "This job has already ended.",
  job_not_failed: "Only a failed job can be retried.",
  job_not_retryable: "Trying this job again would fail the same way.",
  job_canceled: "This job was canceled: queue the download again instead.",
  batch_not_found: "This batch does not exist any more."
}

export const refusalOf = (error: ApiError): Refusal => {
  const after = Number(error.headers?.["retry-after"])
  return {
    status: error.status,
    code: error.code,
    headline: HEADLINES[error.code] ?? "The service refused this.",
    message: error.message,
    retryAfterSeconds: Number.isInteger(after) && after > 0 ? after : null
  }
}

export const isRefusal = (outcome: unknown): outcome is { readonly refused: Refusal } =>
  typeof outcome === "object" && outcome !== null && "refused" in outcome

/**
 * A /v1 handler's failure as a value the page shows (`{refused}`), mapped exactly as /v1 maps it. An internal error
 * fails on to the dashboard's error page; a dependency's failure is shown too, and logged as /v1 logs it.
 */
export const orRefusal = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A | { readonly refused: Refusal }, E, R> =>
  Effect.catch(effect, (failure) => {
    const error = toApiError(failure as ApiFailure) ?? internalError
    if (error.code === "internal_error") return Effect.fail(failure)
    const refused = Effect.succeed({ refused: refusalOf(error) } as const)
    return isServerSide(error) ? Effect.andThen(Effect.logWarning("dashboard action refused", error.code, error.message), refused) : refused
  })

/** A page answering with the refusal's status and Retry-After, as /v1 would (200 without a refusal). */
export const refusalReply = (body: Html, refusal: Refusal | null): DashboardReply =>
  refusal === null
    ? { _tag: "Page", status: 200, body }
    : {
        _tag: "Page",
        status: refusal.status,
        body,
        ...(refusal.retryAfterSeconds === null ? {} : { headers: { "retry-after": String(refusal.retryAfterSeconds) } })
      }
