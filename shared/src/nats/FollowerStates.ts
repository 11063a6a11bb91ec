// Follower states across processes: each process with followers answers a request on FOLLOWER_STATES_RPC_SUBJECT
// with its snapshot, and the gateway gathers the answers for /v1/health (the aggregator's followers live elsewhere).
import { Effect, Layer, Schema } from "effect"
import { FOLLOWER_STATES_RPC_SUBJECT } from "./Subjects.ts"
import { Followers } from "./Followers.ts"
import { NatsClient } from "./NatsClient.ts"

export const FollowerStateValue = Schema.Literals(["following", "recovering"])

/** One process's answer: its service name and each follower's state. */
export const FollowerStatesReply = Schema.Struct({
  service: Schema.String,
  followers: Schema.Record(Schema.String, FollowerStateValue)
})
export type FollowerStatesReply = typeof FollowerStatesReply.Type

const encodeReply = Schema.encodeSync(Schema.fromJsonString(FollowerStatesReply))
const decodeReply = Schema.decodeUnknownOption(Schema.fromJsonString(FollowerStatesReply))

/** Answers every request for follower states with this process's snapshot, as `service`, while the layer lives. */
export const answerFollowerStates = (service: string) =>
  Layer.effectDiscard(
    Effect.gen(function* () {
      const { connection } = yield* NatsClient
      const followers = yield* Followers
      yield* Effect.acquireRelease(
        Effect.sync(() =>
          connection.subscribe(FOLLOWER_STATES_RPC_SUBJECT, {
            callback: (_error, message) => {
              message.respond(encodeReply({ service, followers: followers.snapshot() }))
            }
          })
        ),
        (subscription) => Effect.sync(() => subscription.unsubscribe())
      )
    })
  )

/** How long answers are gathered: every process on the bus answers within milliseconds. */
const GATHER_MS = 500

/**
 * Every answering process's followers, named `<service>.<follower>`; several instances of a service report one state
 * per follower, `recovering` if any instance's is (one instance's view not trusted is what an operator must see).
 */
export const gatherFollowerStates = Effect.gen(function* () {
  const { connection } = yield* NatsClient
  const replies = yield* Effect.promise(async () => {
    const gathered: Array<FollowerStatesReply> = []
    try {
      for await (const message of await connection.requestMany(FOLLOWER_STATES_RPC_SUBJECT, undefined, {
        strategy: "timer",
        maxWait: GATHER_MS
      })) {
        const reply = decodeReply(message.string())
        if (reply._tag === "Some") gathered.push(reply.value)
      }
    } catch {
      // No responders, or the connection is down: nothing gathered.
    }
    return gathered
  })
  const states: Record<string, typeof FollowerStateValue.Type> = {}
  for (const reply of replies) {
    for (const [name, state] of Object.entries(reply.followers)) {
      const key = `${reply.service}.${name}`
      states[key] = states[key] === "recovering" ? "recovering" : state
    }
  }
  return states
})
