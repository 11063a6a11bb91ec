// GET /v1/health: "ok" while the NATS connection answers a ping, "degraded" (503) otherwise; with each stream follower's
// state, this gateway's and the aggregator's, and the messages each aggregator consumer parked.
import { Followers } from "@mds/shared/nats/Followers"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Effect } from "effect"
import { json } from "../http/Route.ts"
import { ServiceFollowersView } from "./ServiceFollowersView.ts"
import { YtDlpFleetView } from "./YtDlpFleetView.ts"
import { ParkedView } from "./ParkedView.ts"

const PING_TIMEOUT = "1 second"

export const checkHealth = Effect.fn("checkHealth")(function* () {
  const { connection } = yield* NatsClient
  // A follower that is recovering does not make the gateway unhealthy: its reads fall back to the stores meanwhile,
  // and a load balancer taking every gateway out while one NATS node restarts would turn a blip into an outage.
  const own = (yield* Followers).snapshot()
  // The ping promise settles on its own even after the timeout gave up on it, so it must never reject.
  const connected = yield* Effect.promise(() =>
    connection.flush().then(
      () => true,
      () => false
    )
  ).pipe(
    Effect.timeout(PING_TIMEOUT),
    Effect.orElseSucceed(() => false)
  )
  // The aggregator's followers (named `aggregator.<follower>`), as last gathered over NATS.
  const followers = connected ? { ...own, ...(yield* (yield* ServiceFollowersView).states) } : own
  const ytDlp = connected ? yield* (yield* YtDlpFleetView).report : null
  // Parked messages do not make the gateway unhealthy (it serves as before): they wait for an operator, who sees them here.
  const parked = connected ? yield* (yield* ParkedView).counts : null
  const extension = { ...(ytDlp === null ? {} : { yt_dlp: ytDlp }), ...(parked === null ? {} : { parked_messages: parked }) }
  return connected
    ? json(200, { status: "ok", version: "v1", followers, ...extension })
    : json(503, { status: "degraded", version: "v1", followers })
})
