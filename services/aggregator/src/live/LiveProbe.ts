// Extension: a probe of a scheduled job's media: the URL resolved again through the extractors' resolve RPC (with the
// project's cookies), read as live, not yet (with the start it announces now), or failed. A port, so the lifecycle
// model probes a stream of its own.
import { Context, Effect, Layer } from "effect"
import type { LiveProbeOutcome } from "@mds/shared/domain/job/JobScheduleEvent"
import { liveStatusOf } from "@mds/shared/domain/media/LiveStatus"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { requestResolve } from "@mds/shared/nats/ResolveRpcClient"

export interface LiveProbeResult {
  readonly outcome: LiveProbeOutcome
  /** The start the media announces now, when it is still upcoming and says when. */
  readonly startsAt?: number
}

export class LiveProbe extends Context.Service<LiveProbe, { probe(projectId: string, url: string): Effect.Effect<LiveProbeResult> }>()(
  "mds/aggregator/LiveProbe"
) {
  /**
   * Over the resolve RPC (`mds.rpc.media.resolve`). Whatever is no longer upcoming counts as begun: live now, or over
   * already (a premiere that ran, a stream that ended: was_live, post_live, not_live): the job downloads what there is.
   */
  static readonly layer = Layer.effect(
    LiveProbe,
    Effect.gen(function* () {
      const nats = yield* NatsClient
      return LiveProbe.of({
        probe: (projectId, url) =>
          requestResolve({ url, projectId }).pipe(
            Effect.map((reply): LiveProbeResult => {
              if (reply._tag === "ResolveRejected") return { outcome: "failed" }
              if (liveStatusOf(reply.media) !== "is_upcoming") return { outcome: "live" }
              return reply.media.releaseAt === undefined
                ? { outcome: "not_live" }
                : { outcome: "not_live", startsAt: reply.media.releaseAt }
            }),
            Effect.catchTag("ResolveRpcFailed", () => Effect.succeed<LiveProbeResult>({ outcome: "failed" })),
            Effect.provideService(NatsClient, nats)
          )
      })
    })
  )
}
