// Whether reads of a stream must go to its leader: asked of the stream itself (its replica count), cached, and asked
// again when the stream is updated (a replica count raised by another service or by hand) or the answer is old.
import type { JetStreamManager } from "@nats-io/jetstream"
import type { NatsConnection } from "@nats-io/transport-node"
import { Effect } from "effect"

/** How long an answer is kept when no update advisory arrives (one was lost during a reconnect, say). */
const MAX_AGE_MS = 30_000

/** Published by the server whenever a stream's configuration changes; the last token is the stream. */
const STREAM_UPDATED = "$JS.EVENT.ADVISORY.STREAM.UPDATED.*"

interface Known {
  readonly leader: boolean
  readonly at: number
}

/**
 * A direct get may be answered by any replica, and a replica may lag the leader: with more than one replica, reads
 * go to the leader. A stream whose info cannot be read is read through its leader (never wrong, only slower).
 */
export const streamLeaderReads = (connection: NatsConnection, jsm: JetStreamManager) =>
  Effect.gen(function* () {
    const known = new Map<string, Known>()
    yield* Effect.acquireRelease(
      Effect.sync(() =>
        connection.subscribe(STREAM_UPDATED, {
          callback: (_error, message) => {
            known.delete(message.subject.slice(STREAM_UPDATED.length - 1))
          }
        })
      ),
      (subscription) => Effect.sync(() => subscription.unsubscribe())
    )
    return async (stream: string): Promise<boolean> => {
      const cached = known.get(stream)
      if (cached !== undefined && Date.now() - cached.at < MAX_AGE_MS) return cached.leader
      try {
        const info = await jsm.streams.info(stream)
        const leader = info.config.num_replicas > 1
        known.set(stream, { leader, at: Date.now() })
        return leader
      } catch {
        return true
      }
    }
  })
