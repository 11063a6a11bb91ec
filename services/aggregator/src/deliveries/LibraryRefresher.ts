// Extension: the library refresh reactor: a durable consumer of JobDelivered that, for a destination with a media
// server, calls its refresh at most once per LIBRARY_REFRESH_DEBOUNCE_SECONDS (a delivery inside the window waits for
// its end; a refresh after a delivery covers it) and records each call (DestinationLibraryRefreshed: ok or its code).
// A lost wake-up loses one refresh, which the next delivery makes good; no reconcile.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Clock, Effect, Layer, Option } from "effect"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import { currentDestination, destinationCommands } from "@mds/shared/application/destination/DestinationCommands"
import { refreshTiming } from "@mds/shared/domain/destination/LibraryRefreshTiming"
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { destinationSubject, JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { Done, later, runReactor, type WakeSource } from "../reactors/Reactor.ts"
import { callLibraryRefresh } from "./LibraryRefreshCall.ts"
import { LibraryRefreshConfig } from "./LibraryRefreshConfig.ts"

export const LIBRARY_REFRESHES_DURABLE = "aggregator-library-refreshes"

interface DeliveredInto {
  readonly projectId: string
  readonly destinationId: string
  readonly deliveredAt: number
}

const makeLibraryRefresher = Effect.gen(function* () {
  const { debounceMs } = yield* LibraryRefreshConfig
  const services = yield* Effect.context<EventStore | DestinationAccess | EgressPolicy>()

  const round = Effect.fn("LibraryRefresher.round")(function* ({ projectId, destinationId, deliveredAt }: DeliveredInto) {
    const { state } = yield* currentDestination(projectId, destinationId)
    const now = yield* Clock.currentTimeMillis
    const timing = refreshTiming(state, deliveredAt, now, debounceMs)
    if (timing._tag === "Skip" || state === null) return Done
    if (timing._tag === "Wait") return later(timing.until - now, "library refresh window")
    const outcome = yield* callLibraryRefresh(state)
    yield* destinationCommands(
      projectId,
      destinationId
    )({
      _tag: "RecordLibraryRefresh",
      projectId,
      destinationId,
      ok: outcome.ok,
      ...(outcome.ok ? {} : { error: outcome.error }),
      now: yield* Clock.currentTimeMillis
    }).pipe(Effect.catchTag("DestinationNotFound", () => Effect.void))
    yield* Effect.logInfo("library refresh called", { projectId, destinationId, ok: outcome.ok })
    return Done
  }, Effect.provide(services))

  const delivered: WakeSource<DeliveredInto, "Delivered"> = {
    stream: JOBS_STREAM.name,
    durable: LIBRARY_REFRESHES_DURABLE,
    filterSubject: jobSubject.all,
    lanes: 1,
    ackWaitMs: 60_000,
    deliverPolicy: DeliverPolicy.New,
    wakes: (msg) => {
      const event = decodeJobEventJson(msg.string())
      if (Option.isNone(event) || event.value._tag !== "JobDelivered") return Effect.succeed([])
      const key = jobSubject.parse(msg.subject)
      if (Option.isNone(key)) return Effect.as(stepOverSubject("library refreshes", msg.subject), [])
      const wake = { projectId: key.value.projectId, destinationId: event.value.destinationId, deliveredAt: event.value.at }
      return Effect.succeed([{ key: wake, trigger: "Delivered" as const }])
    }
  }

  yield* runReactor({
    name: "library refreshes",
    keyOf: ({ projectId, destinationId }: DeliveredInto) => destinationSubject(projectId, destinationId),
    round,
    wakeSources: [delivered]
  })
  yield* Effect.logInfo("library refreshes consuming", { debounceMs })
})

export const LibraryRefresher = Layer.effectDiscard(makeLibraryRefresher).pipe(
  Layer.provide(Layer.mergeAll(DestinationAccess.layer, EgressPolicy.layer))
)
