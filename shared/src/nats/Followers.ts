// The stream followers of one process, so /v1/health (and logs) can say which in-memory views are trusted now.
import { Context, Layer } from "effect"
import type { Follower, FollowerState } from "./StreamFollower.ts"

export class Followers extends Context.Service<
  Followers,
  {
    register(follower: Follower): void
    /** Each follower's state by name; a name registered twice (a view that moved to another bucket) shows the latest. */
    snapshot(): Readonly<Record<string, FollowerState>>
  }
>()("mds/nats/Followers") {
  static readonly layer = Layer.sync(Followers, () => {
    const followers = new Map<string, Follower>()
    return Followers.of({
      register: (follower) => {
        followers.set(follower.name, follower)
      },
      snapshot: () => Object.fromEntries([...followers].map(([name, follower]) => [name, follower.state()]))
    })
  })
}
