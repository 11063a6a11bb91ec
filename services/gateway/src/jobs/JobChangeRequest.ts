// What a client of GET /v1/jobs/events asks for: the filters (status, platform, error_code) and where to resume
// (Last-Event-ID), read from the request, or why it cannot be served. Pure.
import { ERROR_CODE_FILTER, JOB_STATUS_FILTER, LAST_EVENT_ID, PLATFORM_FILTER } from "@mds/shared/api/JobChangeFilters"
import type { JobErrorCode } from "@mds/shared/domain/job/JobEvent"
import type { JobView } from "@mds/shared/domain/job/JobView"
import type { ApiJobStatus } from "@mds/shared/api/JobResponse"
import { Schema } from "effect"
import type { HeaderValue } from "../auth/PresentedKey.ts"

export interface ApiJobFilter {
  readonly status: ApiJobStatus | null
  readonly platform: string | null
  readonly errorCode: JobErrorCode | null
}

export interface JobChangeRequest {
  readonly filter: ApiJobFilter
  /** The sequence of the last event the client saw (Last-Event-ID), or null: from now on. */
  readonly lastEventId: number | null
}

const isStatus = Schema.is(JOB_STATUS_FILTER)
const isPlatform = Schema.is(PLATFORM_FILTER)
const isErrorCode = Schema.is(ERROR_CODE_FILTER)
const isLastEventId = Schema.is(LAST_EVENT_ID)

type Read<A> = { readonly value: A | null } | { readonly refused: string }

/** A parameter absent (null), accepted, or refused with the reason (a repeated parameter is an array: refused too). */
const read = <A>(raw: unknown, accepts: (value: unknown) => value is A, name: string, expected: string): Read<A> => {
  if (raw === undefined) return { value: null }
  return accepts(raw) ? { value: raw } : { refused: `${name}: must be ${expected}.` }
}

export const jobChangeRequestOf = (
  query: Readonly<Record<string, unknown>>,
  headers: Readonly<Record<string, HeaderValue>>
): JobChangeRequest | { readonly message: string } => {
  const status = read(query["status"], isStatus, "status", "one of queued, processing, completed, failed")
  const platform = read(query["platform"], isPlatform, "platform", "a platform id (lowercase letters, digits, _)")
  const errorCode = read(query["error_code"], isErrorCode, "error_code", "the error code of a failed job")
  const lastEventId = read(headers["last-event-id"], isLastEventId, "Last-Event-ID", "the id of an event of this stream")
  if ("refused" in status) return { message: status.refused }
  if ("refused" in platform) return { message: platform.refused }
  if ("refused" in errorCode) return { message: errorCode.refused }
  if ("refused" in lastEventId) return { message: lastEventId.refused }
  return {
    filter: { status: status.value, platform: platform.value, errorCode: errorCode.value },
    lastEventId: lastEventId.value === null ? null : Number(lastEventId.value)
  }
}

/** Whether a job passes the filters as GET /jobs/{jobId} shows it (a canceled job is failed, error code canceled). */
export const matchesApiJobFilter = (filter: ApiJobFilter, view: JobView): boolean =>
  (filter.status === null || view.status === filter.status) &&
  (filter.platform === null || view.platform === filter.platform) &&
  (filter.errorCode === null || view.error?.code === filter.errorCode)
