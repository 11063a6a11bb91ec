// The resolve RPC's client: asks an extractor (core NATS request, queue group "extractor") to resolve a URL for a project.
import { errors } from "@nats-io/transport-node"
import { Effect, Schema } from "effect"
import { ResolveReply, ResolveRequest } from "../domain/media/ResolveRpc.ts"
import { RESOLVE_RPC_SUBJECT } from "./Subjects.ts"
import { currentTraceHeaders } from "./TraceContext.ts"
import { NatsClient } from "./NatsClient.ts"

/** yt-dlp on a slow site can take a while; the extractor enforces its own, shorter, limit and reports it. */
export const RESOLVE_RPC_TIMEOUT_MS = 120_000

/** Why no reply came: nobody listens, nobody answered in time, NATS is out of reach, or the reply was unreadable. */
export class ResolveRpcFailed extends Schema.TaggedError<ResolveRpcFailed>()("ResolveRpcFailed", {
  reason: Schema.Literals(["no_responders", "timeout", "unreachable", "unreadable"]),
  message: Schema.String
}) {}

const encodeRequest = Schema.encodeSync(Schema.fromJsonString(ResolveRequest))
const decodeReply = Schema.decodeUnknownEffect(Schema.fromJsonString(ResolveReply))

/**
 * The project goes with the request: an extractor uses the project's cookies for the platform, if it stored any.
 * The reply is the extractor's word (resolved, or rejected with a code); only a missing reply fails.
 */
export const requestResolve = Effect.fn("requestResolve")(function* (request: ResolveRequest) {
  const { connection } = yield* NatsClient
  const headers = yield* currentTraceHeaders
  const reply = yield* Effect.tryPromise({
    try: () =>
      connection.request(RESOLVE_RPC_SUBJECT, encodeRequest(request), {
        timeout: RESOLVE_RPC_TIMEOUT_MS,
        ...(headers === undefined ? {} : { headers })
      }),
    catch: (cause) => {
      if (cause instanceof errors.RequestError && cause.isNoResponders()) {
        return new ResolveRpcFailed({ reason: "no_responders", message: "No extractor is available to resolve media; retry shortly." })
      }
      if (cause instanceof errors.TimeoutError || (cause instanceof Error && cause.cause instanceof errors.TimeoutError)) {
        return new ResolveRpcFailed({ reason: "timeout", message: "Resolving the media took too long." })
      }
      return new ResolveRpcFailed({ reason: "unreachable", message: "The extractor fleet cannot be reached; retry shortly." })
    }
  })
  return yield* decodeReply(reply.string()).pipe(
    Effect.mapError(() => new ResolveRpcFailed({ reason: "unreadable", message: "The extractor sent an unreadable reply." }))
  )
})
