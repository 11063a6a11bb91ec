// A stream follower that hands on the events it decodes, listed among the followers /v1/health reports.
import { Followers } from "./Followers.ts"
import { followDecoded } from "./StreamFollower.ts"
import { Effect } from "effect"

/** `followDecoded`, registered for /v1/health: messages that do not decode are skipped. */
export const followEvents = <A>(spec: Parameters<typeof followDecoded<A>>[0]) =>
  Effect.gen(function* () {
    const follower = yield* followDecoded(spec)
    ;(yield* Followers).register(follower)
    return follower
  })
