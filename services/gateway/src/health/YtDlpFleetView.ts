// The fleet's yt-dlp releases for GET /v1/health: the operator's choice and each extractor's last report, refreshed in
// the background at most every 5 s, so a health check never waits on it.
import { fleetStatusOf } from "@mds/shared/domain/release/YtDlpFleetStatus"
import { YtDlpReleaseChosen, YtDlpWorkerEvent } from "@mds/shared/domain/release/YtDlpReleaseEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { YT_DLP_CHOICE_SUBJECT, ytDlpWorkerSubject } from "@mds/shared/nats/Subjects"
import { Context, Effect, Layer, Option } from "effect"
import type { Health } from "@mds/shared/api/Responses"

type FleetReport = NonNullable<Health["yt_dlp"]>

const MAX_AGE_MS = 5_000

export class YtDlpFleetView extends Context.Service<
  YtDlpFleetView,
  {
    /** The last report read; null before the first read finished (or while the streams cannot be read). */
    readonly report: Effect.Effect<FleetReport | null>
  }
>()("mds/gateway/YtDlpFleetView") {
  static readonly layer = Layer.effect(
    YtDlpFleetView,
    Effect.gen(function* () {
      const store = yield* EventStore
      let cached: FleetReport | null = null
      let readAt = 0
      const read = Effect.gen(function* () {
        const choice = yield* store.readLast(YtDlpReleaseChosen, YT_DLP_CHOICE_SUBJECT)
        const reports = yield* store.readSubject(YtDlpWorkerEvent, ytDlpWorkerSubject.all)
        return {
          choice: Option.match(choice, { onNone: () => null, onSome: (stored) => stored.event.choice }),
          extractors: fleetStatusOf(
            reports.map((stored) => stored.event),
            Date.now()
          ).map((worker) => ({
            worker_id: worker.workerId,
            version: worker.version,
            last_change: worker.lastChange,
            reason: worker.reason,
            at: new Date(worker.at).toISOString()
          }))
        }
      })
      const refresh = read.pipe(
        Effect.tap((fresh) => Effect.sync(() => (cached = fresh))),
        Effect.catchCause((cause) => Effect.logDebug("yt-dlp fleet report not read", cause))
      )
      const report = Effect.suspend(() => {
        const now = Date.now()
        if (now - readAt < MAX_AGE_MS) return Effect.succeed(cached)
        readAt = now
        return Effect.as(Effect.forkDetach(refresh), cached)
      })
      return YtDlpFleetView.of({ report })
    })
  )
}
