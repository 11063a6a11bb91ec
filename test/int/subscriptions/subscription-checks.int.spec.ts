// Subscription checks on a real nats-server, extractor (pinned yt-dlp) and aggregator(s), against a local feed that grows
// between checks: only new entries are queued, once, across checks, subscriptions of one project and two aggregators.
import { type Effect, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { recordArchiveEntry } from "@mds/shared/application/archive/ArchiveCommands"
import { formerArchiveKeyOf } from "@mds/shared/domain/subscription/ArchiveKey"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import type { SubscriptionEvent as SubscriptionEventType } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { type Subscription, subscriptionStatus } from "@mds/shared/domain/subscription/SubscriptionState"
import type { EventStore } from "@mds/shared/eventstore/EventStore"
import type { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { entryIdOf } from "../../../services/extractor/src/ytdlp/describePlaylist.ts"
import { eventually } from "../../support/Eventually.ts"
import type { MediaServer } from "../../support/MediaServer.ts"
import {
  lastCheckOf,
  outcomes,
  queuedTitlesOf,
  startSubscriptionStack,
  type SubscriptionStack,
  CheckHostServices,
  subscriptionEventsOf
} from "./SubscriptionStack.ts"
import { createSubscription } from "../../support/Subscriptions.ts"

type Services = EventStore | NatsClient | SubscriptionStates

let stack: SubscriptionStack
let media: MediaServer
const aggregators: Array<ManagedRuntime.ManagedRuntime<Services, never>> = []

const HOUR = 3_600_000

const startAggregator = async () => {
  const runtime = await stack.startAggregator(AggregatorLayer)
  aggregators.push(runtime)
  return runtime
}

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => {
  const runtime = aggregators[0]
  if (runtime === undefined) throw new Error("no aggregator running")
  return runtime.runPromise(effect)
}

beforeAll(async () => {
  stack = await startSubscriptionStack({ name: "mds-subscriptions-" })
  media = stack.media
  await startAggregator()
}, 120_000)

afterAll(async () => {
  for (const runtime of aggregators) await runtime.dispose()
  await stack?.close()
})

const subscriptionEvents = (projectId: string, subscriptionId: string) => run(subscriptionEventsOf(projectId, subscriptionId))

const stateOf = async (projectId: string, subscriptionId: string): Promise<Subscription> => {
  const { state } = await run(currentSubscription(projectId, subscriptionId))
  if (state === null) throw new Error(`no subscription ${subscriptionId}`)
  return state
}

/** Waits until the subscription has `count` check outcomes (checked or failed) and returns its events. */
const afterChecks = (projectId: string, subscriptionId: string, count: number) =>
  eventually(
    () => subscriptionEvents(projectId, subscriptionId),
    (events) => outcomes(events).length >= count,
    `check ${count} of ${subscriptionId}`,
    60_000
  )

const subscribe = (projectId: string, url: string, options?: Parameters<typeof createSubscription>[2]) =>
  run(createSubscription(projectId, url, options))

/** As POST /v1/subscriptions/{id}/check does; waits for the check's outcome. */
const checkNow = async (projectId: string, subscriptionId: string) => {
  const before = outcomes(await subscriptionEvents(projectId, subscriptionId)).length
  await run(subscriptionCommands(projectId, subscriptionId)({ _tag: "CheckNow", subscriptionId, now: Date.now() }))
  return afterChecks(projectId, subscriptionId, before + 1)
}

const queuedTitles = (projectId: string, events: ReadonlyArray<SubscriptionEventType>) => run(queuedTitlesOf(projectId, events))

describe("subscription checks", () => {
  it("the first check is a baseline; a later check queues only the entries that appeared since, and a repeat queues nothing", async () => {
    const projectId = newId("prj")
    media.setFeed("grow", { episodes: 3 })
    const subscriptionId = await subscribe(projectId, media.growingFeed("grow"))
    const first = await afterChecks(projectId, subscriptionId, 1)
    expect(lastCheckOf(first)).toEqual({ found: 3, new: 0, filtered: 0, queued: 0 })

    media.setFeed("grow", { episodes: 5 })
    const second = await checkNow(projectId, subscriptionId)
    expect(lastCheckOf(second)).toEqual({ found: 5, new: 2, filtered: 0, queued: 2 })
    expect(await queuedTitles(projectId, second)).toEqual(["Episode 5", "Episode 4"])

    const third = await checkNow(projectId, subscriptionId)
    expect(lastCheckOf(third)).toEqual({ found: 5, new: 0, filtered: 0, queued: 0 })
    expect(await queuedTitles(projectId, third)).toEqual(["Episode 5", "Episode 4"])
  }, 120_000)

  it("backfill queues the newest current entries at once", async () => {
    const projectId = newId("prj")
    media.setFeed("backfill", { episodes: 4 })
    const subscriptionId = await subscribe(projectId, media.growingFeed("backfill"), { backfill: 2 })
    const events = await afterChecks(projectId, subscriptionId, 1)
    expect(lastCheckOf(events)).toEqual({ found: 4, new: 2, filtered: 0, queued: 2 })
    expect(await queuedTitles(projectId, events)).toEqual(["Episode 4", "Episode 3"])
  }, 120_000)

  it("filters let only matching new entries through, and a check whose new entries were all filtered is a success", async () => {
    const projectId = newId("prj")
    media.setFeed("filters", { episodes: 1, title: (n) => (n % 2 === 0 ? `Bonus ${n}` : `Episode ${n}`) })
    const subscriptionId = await subscribe(projectId, media.growingFeed("filters"), { filters: { titleContains: "bonus" } })
    await afterChecks(projectId, subscriptionId, 1)
    media.setFeed("filters", { episodes: 4 })
    const events = await checkNow(projectId, subscriptionId)
    expect(lastCheckOf(events)).toEqual({ found: 4, new: 3, filtered: 1, queued: 2 })
    expect(await queuedTitles(projectId, events)).toEqual(["Bonus 4", "Bonus 2"])

    media.setFeed("filters", { episodes: 5 })
    const onlyFiltered = await checkNow(projectId, subscriptionId)
    expect(lastCheckOf(onlyFiltered)).toEqual({ found: 5, new: 1, filtered: 1, queued: 0 })
    expect(subscriptionStatus(await stateOf(projectId, subscriptionId))).toBe("active")
  }, 120_000)

  it("published_after lets through the entries the feed dates from then on, and undated ones; the archive knows a feed item by its guid", async () => {
    const projectId = newId("prj")
    const cutoff = Date.UTC(2026, 10, 3)
    const DAY = 86_400_000
    media.setFeed("dated", {
      episodes: 2,
      // Episode 3 a day before the cutoff, 4 a day after, 5 undated; every episode but 5 has a guid.
      published: (n) => (n === 5 ? null : new Date(cutoff + (n - 3.5) * 2 * DAY)),
      guid: (n) => (n === 5 ? null : `dated-episode-${n}`)
    })
    const subscriptionId = await subscribe(projectId, media.growingFeed("dated"), { filters: { publishedAfter: cutoff } })
    await afterChecks(projectId, subscriptionId, 1)
    media.setFeed("dated", { episodes: 5 })
    const events = await checkNow(projectId, subscriptionId)
    expect(lastCheckOf(events)).toEqual({ found: 5, new: 3, filtered: 1, queued: 2 })
    expect(await queuedTitles(projectId, events)).toEqual(["Episode 5", "Episode 4"])
    const queued = events.flatMap((e) => (e._tag === "SubscriptionEntriesQueued" ? e.entries : []))
    expect(queued.map((entry) => entry.archiveKey)).toEqual([
      `url ${media.origin}/media/tone.m4a?feed=dated&episode=5`,
      "generic dated-episode-4"
    ])
  }, 120_000)

  it("an entry the project's archive recorded under its former key (platform and URL-derived entry id) is not queued again", async () => {
    const projectId = newId("prj")
    media.setFeed("former", { episodes: 2 })
    const episode1 = `${media.origin}/media/tone.m4a?feed=former&episode=1`
    // As a check before entries carried their extractor's id recorded it.
    await run(
      recordArchiveEntry({
        projectId,
        archiveKey: formerArchiveKeyOf("generic", entryIdOf(episode1)),
        subscriptionId: "sub_before",
        claimId: "sub_before@1",
        now: Date.now()
      })
    )
    const subscriptionId = await subscribe(projectId, media.growingFeed("former"), { backfill: 2 })
    const events = await afterChecks(projectId, subscriptionId, 1)
    expect(lastCheckOf(events)).toEqual({ found: 2, new: 2, filtered: 0, queued: 1 })
    expect(await queuedTitles(projectId, events)).toEqual(["Episode 2"])
  }, 120_000)

  it("an overlapping second subscription of the same project queues nothing the first queued", async () => {
    const projectId = newId("prj")
    media.setFeed("overlap", { episodes: 3 })
    const first = await subscribe(projectId, media.growingFeed("overlap"), { backfill: 3 })
    expect(lastCheckOf(await afterChecks(projectId, first, 1)).queued).toBe(3)
    const second = await subscribe(projectId, media.growingFeed("overlap", "again"), { backfill: 3 })
    const events = await afterChecks(projectId, second, 1)
    expect(lastCheckOf(events)).toEqual({ found: 3, new: 3, filtered: 0, queued: 0 })
    expect(events.some((e) => e._tag === "SubscriptionEntriesQueued")).toBe(false)

    // Another project has its own archive.
    const other = newId("prj")
    const theirs = await subscribe(other, media.growingFeed("overlap"), { backfill: 3 })
    expect(lastCheckOf(await afterChecks(other, theirs, 1)).queued).toBe(3)
  }, 120_000)

  it("a feed that fails three checks in a row is failing with the last error, and recovers with the next good check", async () => {
    const projectId = newId("prj")
    media.setFeed("flaky", { episodes: 2 })
    const subscriptionId = await subscribe(projectId, media.growingFeed("flaky"))
    await afterChecks(projectId, subscriptionId, 1)
    media.setFeed("flaky", { failing: true })
    for (const failures of [1, 2, 3]) {
      await checkNow(projectId, subscriptionId)
      const state = await stateOf(projectId, subscriptionId)
      expect(state.failuresInARow).toBe(failures)
      expect(subscriptionStatus(state)).toBe(failures < 3 ? "active" : "failing")
    }
    const failing = await subscriptionEvents(projectId, subscriptionId)
    expect(failing.filter((e) => e._tag === "SubscriptionFailing")).toHaveLength(1)
    expect((await stateOf(projectId, subscriptionId)).lastError?.code).toBe("extraction_failed")

    media.setFeed("flaky", { failing: false, episodes: 3 })
    const recovered = await checkNow(projectId, subscriptionId)
    expect(lastCheckOf(recovered)).toEqual({ found: 3, new: 1, filtered: 0, queued: 1 })
    const state = await stateOf(projectId, subscriptionId)
    expect(subscriptionStatus(state)).toBe("active")
    expect(state.lastError).toBeNull()
  }, 180_000)

  it("two aggregators racing every check of a subscription run each once: one resolve, one batch, one record", async () => {
    const second = await startAggregator()
    try {
      const projectId = newId("prj")
      media.setFeed("race", { episodes: 1 })
      const url = media.growingFeed("race")
      const subscriptionId = await subscribe(projectId, url)
      await afterChecks(projectId, subscriptionId, 1)
      media.setFeed("race", { episodes: 3 })
      const events = await checkNow(projectId, subscriptionId)
      expect(lastCheckOf(events).queued).toBe(2)
      expect(outcomes(events)).toHaveLength(2)
      expect(events.filter((e) => e._tag === "SubscriptionEntriesQueued")).toHaveLength(1)
      // Each check fetched the feed once: neither aggregator resolved a check the other ran.
      expect(media.requestCount(url)).toBe(2)
    } finally {
      aggregators.splice(aggregators.indexOf(second), 1)
      await second.dispose()
    }
  }, 120_000)

  it("a check missed while every aggregator was down runs once on start, not once per missed period", async () => {
    const projectId = newId("prj")
    media.setFeed("missed", { episodes: 2 })
    for (const runtime of aggregators.splice(0, aggregators.length)) await runtime.dispose()
    // Written as the gateway would, while no aggregator runs.
    const writer = ManagedRuntime.make(
      CheckHostServices.pipe(
        Layer.provideMerge(JetStreamEventStore),
        Layer.provideMerge(NatsClient.layer),
        Layer.provide(stack.withConfig({})),
        Layer.orDie
      )
    )
    const subscriptionId = await writer.runPromise(
      createSubscription(projectId, media.growingFeed("missed"), { now: Date.now() - 5 * HOUR })
    )
    await writer.dispose()
    const started = Date.now()
    await startAggregator()
    const events = await afterChecks(projectId, subscriptionId, 1)
    expect(outcomes(events)).toHaveLength(1)
    const state = await stateOf(projectId, subscriptionId)
    expect(state.nextCheckAt).toBeGreaterThanOrEqual(started + HOUR)
  }, 120_000)
})
