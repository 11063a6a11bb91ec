// A stream follower that hands on the events it decodes, listed among the followers /v1/health reports.
import { Followers } from "@mds/shared/nats/Followers"
import { followDecoded, type FollowerSpec } from "@mds/shared/nats/StreamFollower"
import { Effect, type Option } from "effect"

/** Messages that do not decode (another event's shape, a newer version) are skipped. */
export const followEvents = <A>(
  spec: Omit<FollowerSpec, "onMessage"> & {
    readonly decode: (data: string) => Option.Option<A>
    readonly onEvent: (event: A, seq: number) => void
  }
) =>
  Effect.gen(function* () {
    const { onEvent, ...followed } = spec
    const follower = yield* followDecoded({ ...followed, onEvent: (event, message) => onEvent(event, message.seq) })
    ;(yield* Followers).register(follower)
    return follower
  })
