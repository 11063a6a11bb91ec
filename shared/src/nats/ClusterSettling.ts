// A service's start on a JetStream cluster that is still settling: the answers that mean "not yet", waited out.
import { JetStreamApiError } from "@nats-io/jetstream"
import { errors } from "@nats-io/transport-node"
import { Effect, Schedule } from "effect"

/** nats-server's "JetStream system temporarily unavailable" (a meta leader is being elected). */
const CLUSTER_NOT_AVAILABLE = 10008
/** nats-server's "no suitable peers for placement" (peers not yet reported to the meta leader). */
const NO_SUITABLE_PEERS = 10005

const causes = (error: unknown): ReadonlyArray<unknown> => {
  const chain: Array<unknown> = []
  for (let cause = error; cause !== undefined && chain.length < 4; cause = cause instanceof Error ? cause.cause : undefined) {
    chain.push(cause)
  }
  return chain
}

/**
 * Whether a JetStream API call failed only because the cluster is settling: no answer in time (a meta leader being
 * elected, a node slow under load), JetStream temporarily unavailable, or too few peers reported yet to place the
 * replicas. Anything else (a bad config, replicas above the cluster's size once it has formed) is not waited out.
 */
export const isSettlingAnswer = (error: unknown): boolean =>
  causes(error).some(
    (cause) =>
      cause instanceof errors.TimeoutError ||
      (cause instanceof JetStreamApiError && (cause.code === CLUSTER_NOT_AVAILABLE || cause.code === NO_SUITABLE_PEERS))
  )

/** How long a start waits for a settling cluster before it fails (and its supervisor restarts it). */
export const SETTLING_WAIT_MS = 30_000

/**
 * Runs `attempt`, again every half second for up to SETTLING_WAIT_MS while it fails with a settling answer; fails with
 * the last cause otherwise. The attempt must be safe to repeat: a request that timed out may have been applied.
 */
export const untilSettled = <A>(attempt: () => Promise<A>): Effect.Effect<A, unknown> =>
  Effect.tryPromise({ try: attempt, catch: (cause) => cause }).pipe(
    Effect.retry({
      while: isSettlingAnswer,
      schedule: Schedule.spaced("500 millis").pipe(Schedule.upTo({ duration: `${SETTLING_WAIT_MS} millis` }))
    })
  )

/**
 * An `info` call's not-found answer (`code`: JetStreamApiCodes.StreamNotFound, .ConsumerNotFound) as null; any other
 * failure stays a failure: a timeout must never read as "absent" and make the caller create what exists.
 */
export const nullWhenNotFound =
  (code: number) =>
  (error: unknown): null => {
    if (error instanceof JetStreamApiError && error.code === code) return null
    throw error
  }
