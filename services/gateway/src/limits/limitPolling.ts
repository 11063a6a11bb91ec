// Wraps the GET /jobs/{id} use case so that a key polling one job faster than allowed gets 429 polling_too_fast.
import { Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import type { ApiFailure } from "../http/ErrorMapping.ts"
import type { RouteInput, RouteReply } from "../http/Route.ts"
import { PollingGuard } from "./PollingGuard.ts"

export const limitPolling = <R>(
  handle: (input: RouteInput, principal: Principal) => Effect.Effect<RouteReply, ApiFailure, R>
) =>
(input: RouteInput, principal: Principal): Effect.Effect<RouteReply, ApiFailure, R | PollingGuard> =>
  Effect.gen(function*() {
    const guard = yield* PollingGuard
    const jobId = input.params["jobId"] ?? ""
    // Checked before the job is read, so a client looping too fast costs no lookup.
    yield* guard.check(principal.keyId, jobId)
    const reply = yield* handle(input, principal)
    yield* guard.record(principal.keyId, jobId)
    return reply
  })
