// The query of GET /v1/jobs/events (extension): its filters and Last-Event-ID, as the endpoint declares them and the
// gateway reads them.
import { Schema } from "effect"
import { JobErrorCode } from "../domain/job/JobEvent.ts"
import { JobStatus } from "./Responses.ts"

export const JOB_STATUS_FILTER = JobStatus

/** Platform ids are lowercase letters, digits and underscores (platformIdOf). */
export const PLATFORM_FILTER = Schema.String.check(Schema.isPattern(/^[a-z0-9_]{1,64}$/u))

export const ERROR_CODE_FILTER = JobErrorCode

/** The `id` of an event the stream sent: a stream sequence. */
export const LAST_EVENT_ID = Schema.String.check(Schema.isPattern(/^\d{1,15}$/u))
