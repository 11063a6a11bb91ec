// A stream follower that hands on the events it decodes, listed among the followers /v1/health reports.
import { Followers } from "@mds/shared/nats/Followers"
import { type FollowerSpec, startFollower } from "@mds/shared/nats/StreamFollower"
import { Effect, Option } from "effect"

/** Messages that do not decode (another event's shape, a newer version) are skipped. */
export const followEvents = <A>(
  spec: Omit<FollowerSpec, "onMessage"> & {
    readonly decode: (data: string) => Option.Option<A>
    readonly onEvent: (event: A, seq: number) => void
  }
) =>
  Effect.gen(function* () {
    const { decode, onEvent, ...followed } = spec
    const follower = yield* startFollower({
      ...followed,
      onMessage: (message) => {
        const event = decode(message.data)
        if (Option.isSome(event)) onEvent(event.value, message.seq)
      }
    })
    ;(yield* Followers).register(follower)
    return follower
  })
