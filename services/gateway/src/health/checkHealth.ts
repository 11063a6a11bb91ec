// GET /v1/health: "ok" while the NATS connection answers a ping, "degraded" (503) otherwise.
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Effect } from "effect"
import { json } from "../http/Route.ts"

const PING_TIMEOUT = "1 second"

export const checkHealth = Effect.fn("checkHealth")(function*() {
  const { connection } = yield* NatsClient
  // The ping promise settles on its own even after the timeout gave up on it, so it must never reject.
  const connected = yield* Effect.promise(() => connection.flush().then(() => true, () => false)).pipe(
    Effect.timeout(PING_TIMEOUT),
    Effect.orElseSucceed(() => false)
  )
  return connected
    ? json(200, { status: "ok", version: "v1" })
    : json(503, { status: "degraded", version: "v1" })
})
