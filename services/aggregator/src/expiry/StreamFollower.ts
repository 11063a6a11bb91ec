// Replays a stream from its start and then follows it with an ordered consumer, restarted after any failure.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Effect } from "effect"
import { NatsClient } from "@mds/shared/nats/NatsClient"

export interface FollowedMessage {
  readonly subject: string
  readonly seq: number
  readonly data: string
}

/**
 * Runs forever (fork it). An ordered consumer needs no acks and recreates itself after a gap; after a restart
 * it replays from the start again, so `onMessage` must tolerate seeing a sequence twice.
 */
export const followStream = (stream: string, filterSubject: string, onMessage: (message: FollowedMessage) => void) =>
  Effect.gen(function*() {
    const { js } = yield* NatsClient
    const messages = yield* Effect.acquireRelease(
      Effect.tryPromise(async () => {
        const consumer = await js.consumers.get(stream, { filter_subjects: filterSubject, deliver_policy: DeliverPolicy.All })
        return consumer.consume()
      }),
      (iterator) => Effect.promise(() => iterator.close().then(() => undefined, () => undefined))
    )
    yield* Effect.tryPromise(async () => {
      for await (const message of messages) onMessage({ subject: message.subject, seq: message.seq, data: message.string() })
    })
  }).pipe(
    Effect.scoped,
    Effect.catchCause((cause) => Effect.logWarning("stream follower stopped; restarting", { stream }, cause)),
    Effect.andThen(Effect.sleep("1 second")),
    Effect.forever
  )
