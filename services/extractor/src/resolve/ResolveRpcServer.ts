// Answers resolve requests on core NATS (queue group "extractor"): decode, resolve, reply with a ResolveReply.
import type { Msg } from "@nats-io/transport-node"
import { Effect, Layer, Schema, Stream } from "effect"
import { ResolveReply, ResolveRequest } from "@mds/shared/domain/media/ResolveRpc"
import { RESOLVE_RPC_SUBJECT } from "@mds/shared/nats/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { withMessageSpan } from "@mds/shared/nats/TraceContext"
import { MediaResolver } from "./MediaResolver.ts"

export const RESOLVE_QUEUE_GROUP = "extractor"

const decodeRequest = Schema.decodeUnknownEffect(Schema.fromJsonString(ResolveRequest))
const encodeReply = Schema.encodeEffect(Schema.fromJsonString(ResolveReply))

export const ResolveRpcServer = Layer.effectDiscard(
  Effect.gen(function* () {
    const { connection } = yield* NatsClient
    const resolver = yield* MediaResolver

    const answer = (msg: Msg) =>
      decodeRequest(msg.string()).pipe(
        Effect.mapError(() => ({ _tag: "ResolveRejected", code: "extraction_failed", message: "malformed resolve request" }) as const),
        Effect.flatMap((request) =>
          resolver.resolve(request.url, request.projectId ?? null, { playlist: request.playlist === true }).pipe(
            Effect.map((media): ResolveReply => ({ _tag: "ResolveSucceeded", media })),
            Effect.catchTag("ResolveFailure", (failure) =>
              Effect.succeed<ResolveReply>({ _tag: "ResolveRejected", code: failure.code, message: failure.message })
            )
          )
        ),
        Effect.catch((rejected) => Effect.succeed<ResolveReply>(rejected)),
        Effect.tap((reply) =>
          reply._tag === "ResolveRejected"
            ? Effect.logInfo("resolve rejected", { code: reply.code, message: reply.message })
            : Effect.logInfo("resolved", { mediaId: reply.media.mediaId, platform: reply.media.platform })
        ),
        Effect.flatMap(encodeReply),
        Effect.flatMap((payload) => Effect.sync(() => msg.respond(payload))),
        Effect.catchCause((cause) => Effect.logError("resolve reply failed", cause)),
        withMessageSpan("ResolveRpcServer.answer", msg.headers)
      )

    const subscription = yield* Effect.acquireRelease(
      Effect.sync(() => connection.subscribe(RESOLVE_RPC_SUBJECT, { queue: RESOLVE_QUEUE_GROUP })),
      (sub) => Effect.sync(() => sub.unsubscribe())
    )
    yield* Stream.fromAsyncIterable(subscription, (error) => error).pipe(
      Stream.mapEffect(answer, { concurrency: "unbounded", unordered: true }),
      Stream.runDrain,
      Effect.catchCause((cause) => Effect.logError("resolve subscription ended", cause)),
      Effect.forkScoped
    )
    yield* Effect.logInfo("resolve RPC listening", { subject: RESOLVE_RPC_SUBJECT, queue: RESOLVE_QUEUE_GROUP })
  })
)
