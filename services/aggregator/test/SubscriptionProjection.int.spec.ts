// The subscription projection on a real nats-server: each subscription's document follows its events (a check's counts,
// pause, failures, removal) with its seen keys as digests, only live ones are listed for the reconcile, and a replay of
// the stream into a new store ends equal to it.
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Option } from "effect"
import { subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { seenDigest } from "@mds/shared/domain/subscription/SeenKeys"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { subscriptionSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { SUBSCRIPTIONS_BUCKET } from "@mds/shared/readmodel/kv/KvSubscriptionReadModel"
import { KvReadModels } from "@mds/shared/readmodel/ReadModelLayer"
import { ReadModelStores } from "@mds/shared/readmodel/ReadModelStores"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { defaultAggregatorOptions, runProjections } from "../src/projections/Aggregator.ts"
import { SubjectHistory } from "../src/projections/SubjectHistory.ts"
import { rebuildReadModel } from "../src/rebuild/ProjectionRebuild.ts"
import { SubscriptionProjection, subscriptionsProjection } from "../src/subscriptions/SubscriptionProjection.ts"
import { TestNats } from "../../../test/int/support/TestNats.ts"
import { eventuallyEffect } from "../../../test/support/Eventually.ts"
import { Parking } from "../src/consumers/Parking.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

const live = runProjections([subscriptionsProjection], { ...defaultAggregatorOptions, retryDelayMs: 200 }).pipe(
  Layer.provide(SubscriptionProjection.layer.pipe(Layer.provide(SubjectHistory.layer))),
  Layer.provideMerge(SubscriptionStates.layer),
  Layer.provideMerge(KvReadModels),
  Layer.provideMerge(Layer.mergeAll(JetStreamEventStore, Parking.layer)),
  Layer.provideMerge(TestNats)
)

const T0 = 1_767_225_600_000
const HOUR = 3_600_000
const WAIT_MS = 20_000
const quietBar = () => ({ update: () => undefined, finish: () => undefined })

layer(live, { timeout: 120_000, excludeTestServices: true })("subscription list projection", (it) => {
  it.effect(
    "keeps each subscription's whole state, its seen keys as digests; a removed one stays, unlisted; a replay rebuilds it exactly",
    () =>
      Effect.gen(function* () {
        const subscriptions = yield* SubscriptionReadModel
        const { js } = yield* NatsClient
        const projectId = newId("prj")
        const create = (subscriptionId: string, createdAt: number) =>
          subscriptionCommands(
            projectId,
            subscriptionId
          )({
            _tag: "CreateSubscription",
            subscriptionId,
            projectId,
            url: `https://feeds.example.com/${subscriptionId}.xml`,
            platform: "generic",
            format: parseFormatId("audio_mp3"),
            checkEveryMs: HOUR,
            filters: { titleContains: "live" },
            backfill: 0,
            now: createdAt
          })
        const checked = newId("sub")
        const removed = newId("sub")
        yield* create(checked, T0)
        yield* create(removed, T0 + 1)
        const seen = Array.from({ length: 200 }, (_, i) => `url https://feeds.example.com/episode-${i}.mp3`)
        yield* subscriptionCommands(
          projectId,
          checked
        )({
          _tag: "PlanCheck",
          subscriptionId: checked,
          dueAt: T0,
          now: T0 + 5,
          mediaId: "med_feed",
          platform: "generic",
          found: 200,
          fresh: 0,
          filtered: 0,
          seen,
          refreshed: [],
          candidates: [],
          requeue: [],
          limit: null,
          hold: null
        })
        yield* subscriptionCommands(
          projectId,
          checked
        )({ _tag: "RecordCheck", subscriptionId: checked, dueAt: T0, now: T0 + 10, queued: null, waiting: [] })
        const last = yield* subscriptionCommands(projectId, checked)({ _tag: "PauseSubscription", subscriptionId: checked, now: T0 + 20 })
        // A poison message on the subject is stepped over.
        yield* Effect.promise(() => js.publish(subscriptionSubject(projectId, checked), '{"_tag":"SubscriptionPaused","v":99}'))
        yield* subscriptionCommands(projectId, removed)({ _tag: "RemoveSubscription", subscriptionId: removed, now: T0 + 30 })

        const listLive = subscriptions.listByProject(projectId)
        const settled = (all: ReadonlyArray<{ readonly paused: boolean; readonly removed: boolean }>) =>
          all.some((view) => view.paused) && all.some((view) => view.removed)
        const liveViews = yield* eventuallyEffect(listLive, settled, "the live subscription list", WAIT_MS)
        const view = Option.getOrThrow(yield* subscriptions.get(projectId, checked))
        assert.deepStrictEqual(view, {
          subscriptionId: checked,
          projectId,
          url: `https://feeds.example.com/${checked}.xml`,
          platform: "generic",
          format: parseFormatId("audio_mp3"),
          checkEveryMs: HOUR,
          filters: { titleContains: "live" },
          backfill: 0,
          createdAt: T0,
          paused: true,
          removed: false,
          lastCheck: { at: T0 + 10, found: 200, new: 0, filtered: 0, queued: 0 },
          nextCheckAt: T0 + 10 + HOUR,
          failuresInARow: 0,
          lastError: null,
          seen: seen.map(seenDigest),
          plan: null,
          entries: [],
          downloaded: 0,
          givenUp: 0,
          lastGivenUp: [],
          library: [],
          lastSeq: last.lastSeq
        })
        assert.isFalse(JSON.stringify(view).includes("episode-"))
        // The reconcile's listing: the live (paused) one, not the removed one.
        const rows = (yield* subscriptions.listLive()).filter((row) => row.projectId === projectId)
        assert.deepStrictEqual(rows, [
          { projectId, subscriptionId: checked, paused: true, nextCheckAt: T0 + 10 + HOUR, inFlight: 0, lastSeq: last.lastSeq }
        ])

        // A rebuild replays the subscription stream into a new store and switches to it: the same documents.
        const result = yield* rebuildReadModel("subscriptions", { graceMs: 1_500, progress: quietBar })
        assert.strictEqual(result.previous, SUBSCRIPTIONS_BUCKET)
        assert.strictEqual(yield* (yield* ReadModelStores).current("subscriptions", SUBSCRIPTIONS_BUCKET), result.store)
        const byId = (a: { subscriptionId: string }, b: { subscriptionId: string }) => a.subscriptionId.localeCompare(b.subscriptionId)
        const rebuilt = yield* eventuallyEffect(
          listLive,
          (all) => all.length === 2 && settled(all),
          "the rebuilt subscription list",
          WAIT_MS
        )
        assert.deepStrictEqual([...rebuilt].sort(byId), [...liveViews].sort(byId))
      })
  )
})
