// Behaviour every SubscriptionReadModel adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type { SubscriptionListView } from "@mds/shared/domain/subscription/SubscriptionListView"
import { newId } from "@mds/shared/ids/Ids"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

export const subscriptionView = (projectId: string, overrides: Partial<SubscriptionListView> = {}): SubscriptionListView => ({
  subscriptionId: newId("sub"),
  projectId,
  url: "https://feeds.example.com/channel.xml",
  platform: "generic",
  format: parseFormatId("audio_mp3"),
  checkEveryMs: 3_600_000,
  filters: { titleContains: "live", publishedAfter: 1_767_225_600_000 },
  backfill: 0,
  createdAt: 1_767_225_600_000,
  paused: false,
  removed: false,
  lastCheck: null,
  nextCheckAt: 1_767_225_600_000,
  failuresInARow: 0,
  lastError: null,
  lastSeq: 1,
  ...overrides
})

const byId = (a: SubscriptionListView, b: SubscriptionListView) => a.subscriptionId.localeCompare(b.subscriptionId)

/** The rest of the state a document holds (its snapshot part). */
const WHOLE = { seen: ["1x2y3z", "4a5b6c"], plan: null, entries: [], downloaded: 3, givenUp: 1, lastGivenUp: [] } as const

export const subscriptionReadModelContract = (name: string, adapter: Layer.Layer<SubscriptionReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`SubscriptionReadModel contract: ${name}`, (it) => {
    it.effect("gets a document back as it was put, and lists the project's documents and no other project's", () =>
      Effect.gen(function* () {
        const store = yield* SubscriptionReadModel
        const projectId = newId("prj")
        const first = subscriptionView(projectId, { options: { container: "mp4" }, ...WHOLE })
        const second = subscriptionView(projectId, {
          paused: true,
          lastCheck: { at: 1_767_225_700_000, found: 5, new: 2, filtered: 1, queued: 1 },
          lastError: { code: "extraction_failed", message: "503" },
          failuresInARow: 1
        })
        const removed = subscriptionView(projectId, { removed: true })
        const other = subscriptionView(newId("prj"))
        for (const view of [first, second, removed, other]) yield* store.put(view)
        assert.deepStrictEqual(yield* store.get(projectId, second.subscriptionId), Option.some(second))
        assert.deepStrictEqual([...(yield* store.listByProject(projectId))].sort(byId), [first, second, removed].sort(byId))
        assert.deepStrictEqual(yield* store.listByProject(newId("prj")), [])
        assert.isTrue(Option.isNone(yield* store.get(projectId, newId("sub"))))
      })
    )

    it.effect("lists the live subscriptions of every project as rows (entries in flight counted), a removed one no more", () =>
      Effect.gen(function* () {
        const store = yield* SubscriptionReadModel
        const projectId = newId("prj")
        const inFlight = subscriptionView(projectId, {
          ...WHOLE,
          entries: [
            {
              archiveKey: "generic a",
              entryId: "ent_a",
              url: "https://a.example/a.mp3",
              title: "A",
              failures: 0,
              batchId: "bat_1",
              waitingFor: null
            },
            {
              archiveKey: "generic b",
              entryId: "ent_b",
              url: "https://a.example/b.mp3",
              title: "B",
              failures: 1,
              batchId: null,
              waitingFor: { code: "download_failed", message: "503" }
            }
          ]
        })
        const paused = subscriptionView(newId("prj"), { paused: true, nextCheckAt: 1_767_229_200_000 })
        const goingAway = subscriptionView(projectId, { lastSeq: 3 })
        for (const view of [inFlight, paused, goingAway]) yield* store.put(view)
        const rowsOf = (all: ReadonlyArray<{ readonly subscriptionId: string }>, ids: ReadonlyArray<string>) =>
          all.filter((row) => ids.includes(row.subscriptionId))
        const ids = [inFlight.subscriptionId, paused.subscriptionId, goingAway.subscriptionId]
        const rows = rowsOf(yield* store.listLive(), ids)
        assert.deepStrictEqual(
          [...rows].sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId)),
          [
            {
              projectId,
              subscriptionId: inFlight.subscriptionId,
              paused: false,
              nextCheckAt: inFlight.nextCheckAt,
              inFlight: 1,
              lastSeq: 1
            },
            {
              projectId: paused.projectId,
              subscriptionId: paused.subscriptionId,
              paused: true,
              nextCheckAt: 1_767_229_200_000,
              inFlight: 0,
              lastSeq: 1
            },
            {
              projectId,
              subscriptionId: goingAway.subscriptionId,
              paused: false,
              nextCheckAt: goingAway.nextCheckAt,
              inFlight: 0,
              lastSeq: 3
            }
          ].sort((a, b) => a.subscriptionId.localeCompare(b.subscriptionId))
        )
        yield* store.put({ ...goingAway, removed: true, lastSeq: 4 })
        assert.deepStrictEqual(rowsOf(yield* store.listLive(), [goingAway.subscriptionId]), [])
      })
    )

    it.effect("a document of a later lastSeq is never replaced by an earlier one; one of the same or a later one replaces it", () =>
      Effect.gen(function* () {
        const store = yield* SubscriptionReadModel
        const projectId = newId("prj")
        const view = subscriptionView(projectId, { lastSeq: 5, paused: true, ...WHOLE })
        yield* store.put(view)
        yield* store.put({ ...view, lastSeq: 4, paused: false })
        assert.deepStrictEqual(yield* store.get(projectId, view.subscriptionId), Option.some(view))
        const later = { ...view, lastSeq: 7, paused: false }
        yield* store.put(later)
        assert.deepStrictEqual(yield* store.get(projectId, view.subscriptionId), Option.some(later))
      })
    )
  })
