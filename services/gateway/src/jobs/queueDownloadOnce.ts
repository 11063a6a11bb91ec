// POST /v1/media/download with an Idempotency-Key (extension): the same key and body answer with the same job,
// another body with 409; without the header the request is queued as usual.
import { createHash } from "node:crypto"
import { DownloadRequest } from "@mds/shared/api/Requests"
import { JobAccepted } from "@mds/shared/api/Responses"
import { idempotencyCommands } from "@mds/shared/application/idempotency/IdempotencyCommands"
import { Clock, Effect, Option, Schedule, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { InvalidRequest } from "../http/GatewayErrors.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { loadJobView } from "./loadJobView.ts"
import { queueDownload } from "./queueDownload.ts"

export const IDEMPOTENCY_HEADER = "idempotency-key"
/** Visible ASCII, like Stripe's keys; long enough for a UUID with a prefix. */
const KEY_PATTERN = /^[\x21-\x7e]{1,255}$/
/** A claim older than this was abandoned by a gateway that died mid-request. */
const STALE_CLAIM_MS = 30_000
/** A duplicate waits up to 50 x 200 ms for the first request with its key to finish. */
const IN_USE_POLL = Schedule.spaced("200 millis")
const IN_USE_POLLS = 50

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex")

/** The same fields in the same order, whatever order and spacing the client sent. */
const requestHashOf = (body: DownloadRequest) =>
  sha256(
    JSON.stringify({
      format: body.format,
      media_id: "media_id" in body ? body.media_id : null,
      url: "url" in body ? body.url : null
    })
  )

const keyOf = (input: RouteInput): Effect.Effect<string | null, InvalidRequest> => {
  const value = input.headers[IDEMPOTENCY_HEADER]
  if (value === undefined) return Effect.succeed(null)
  if (typeof value !== "string" || !KEY_PATTERN.test(value)) {
    return Effect.fail(new InvalidRequest({ message: "Idempotency-Key: must be 1 to 255 visible ASCII characters." }))
  }
  return Effect.succeed(value)
}

const acceptedJob = Schema.decodeUnknownSync(JobAccepted)

export const queueDownloadOnce = Effect.fn("queueDownloadOnce")(function* (input: RouteInput, principal: Principal) {
  const key = yield* keyOf(input)
  if (key === null) return yield* queueDownload(input, principal)
  const body = yield* decodeBody(DownloadRequest, input.body)
  const requestHash = requestHashOf(body)
  const keyCommand = idempotencyCommands(principal.projectId, sha256(key).slice(0, 32))

  const claim = yield* Effect.gen(function* () {
    const now = yield* Clock.currentTimeMillis
    return yield* keyCommand({ _tag: "ClaimKey", projectId: principal.projectId, requestHash, now, staleAfterMs: STALE_CLAIM_MS })
  }).pipe(
    Effect.retry({
      while: (error) => error._tag === "IdempotencyKeyInUse",
      schedule: IN_USE_POLL,
      times: IN_USE_POLLS
    })
  )
  if (claim.state._tag === "Bound") {
    // Extension: a scheduled job is answered as the first request was (scheduled, with its start).
    const jobId = claim.state.jobId
    const view = yield* loadJobView(principal.projectId, jobId)
    const schedule = Option.isSome(view) ? view.value.schedule : undefined
    const accepted =
      schedule === undefined
        ? { job_id: jobId, status: "queued" }
        : { job_id: jobId, status: "scheduled", starts_at: new Date(schedule.startsAt).toISOString() }
    return json(202, accepted, { "idempotent-replayed": "true" })
  }

  const reply = yield* queueDownload(input, principal).pipe(
    Effect.tapError(() =>
      Clock.currentTimeMillis.pipe(
        Effect.flatMap((now) => keyCommand({ _tag: "ReleaseKey", requestHash, now })),
        Effect.ignore
      )
    )
  )
  const accepted = reply._tag === "Json" ? acceptedJob(reply.data) : null
  if (accepted !== null) {
    const now = yield* Clock.currentTimeMillis
    // The job exists whatever happens here; an unbound claim goes stale and is then taken over.
    yield* keyCommand({ _tag: "BindKey", requestHash, jobId: accepted.job_id, now }).pipe(
      Effect.retry({ times: 3 }),
      Effect.catchCause((cause) => Effect.logWarning("idempotency key not bound", cause))
    )
  }
  return reply
})
