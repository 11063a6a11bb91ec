// Behaviour every SubscriptionReadModel adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type { SubscriptionListView } from "@mds/shared/domain/subscription/SubscriptionListView"
import { newId } from "@mds/shared/ids/Ids"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"

export const subscriptionView = (projectId: string, overrides: Partial<SubscriptionListView> = {}): SubscriptionListView => ({
  subscriptionId: newId("sub"),
  projectId,
  url: "https://feeds.example.com/channel.xml",
  platform: "generic",
  format: "audio_mp3",
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

export const subscriptionReadModelContract = (name: string, adapter: Layer.Layer<SubscriptionReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`SubscriptionReadModel contract: ${name}`, (it) => {
    it.effect("gets a document back as it was put, and lists the project's documents and no other project's", () =>
      Effect.gen(function* () {
        const store = yield* SubscriptionReadModel
        const projectId = newId("prj")
        const first = subscriptionView(projectId, { options: { container: "mp4" } })
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

    it.effect("a document of a later lastSeq is never replaced by an earlier one; one of the same or a later one replaces it", () =>
      Effect.gen(function* () {
        const store = yield* SubscriptionReadModel
        const projectId = newId("prj")
        const view = subscriptionView(projectId, { lastSeq: 5, paused: true })
        yield* store.put(view)
        yield* store.put({ ...view, lastSeq: 4, paused: false })
        assert.deepStrictEqual(yield* store.get(projectId, view.subscriptionId), Option.some(view))
        const later = { ...view, lastSeq: 7, paused: false }
        yield* store.put(later)
        assert.deepStrictEqual(yield* store.get(projectId, view.subscriptionId), Option.some(later))
      })
    )
  })
