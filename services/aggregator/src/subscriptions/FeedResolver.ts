// Extension: how a subscription's check reads its feed: the followed URL resolved as a playlist, with the project's
// cookies (the extractor applies them), or why not. A port, so the lifecycle model runs the real check over a feed of
// its own.
import { Context, Effect, Layer } from "effect"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import type { CheckError } from "@mds/shared/domain/subscription/SubscriptionEvent"
import type { Subscription } from "@mds/shared/domain/subscription/SubscriptionState"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { requestResolve } from "@mds/shared/nats/ResolveRpcClient"

export class FeedResolver extends Context.Service<
  FeedResolver,
  { resolve(subscription: Subscription): Effect.Effect<MediaResolved | CheckError> }
>()("mds/aggregator/FeedResolver") {
  /** Over the resolve RPC (`mds.rpc.media.resolve`), as any playlist is resolved. */
  static readonly layer = Layer.effect(
    FeedResolver,
    Effect.gen(function* () {
      const nats = yield* NatsClient
      return FeedResolver.of({
        resolve: (subscription) =>
          requestResolve({ url: subscription.url, projectId: subscription.projectId, playlist: true }).pipe(
            Effect.map((reply): MediaResolved | CheckError => {
              if (reply._tag === "ResolveRejected") return { code: reply.code, message: reply.message }
              if (reply.media.entries === undefined) return { code: "not_a_playlist", message: "The URL no longer resolves as a playlist." }
              return reply.media
            }),
            Effect.catchTag("ResolveRpcFailed", (failure) =>
              Effect.succeed<CheckError>({
                code: failure.reason === "timeout" ? "extraction_timeout" : "service_unavailable",
                message: failure.message
              })
            ),
            Effect.provideService(NatsClient, nats)
          )
      })
    })
  )
}
