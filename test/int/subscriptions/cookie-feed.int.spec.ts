// A subscription to a members-only feed on a real nats-server, extractor (pinned yt-dlp) and aggregator: its checks
// resolve the feed with the project's stored cookies, and what they resolved stays invisible to another project.
import { randomBytes } from "node:crypto"
import { Effect, Layer, type ManagedRuntime, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { isMediaVisibleTo } from "@mds/shared/domain/media/MediaVisibility"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { ARCHIVE_STREAM, archiveSubject, batchSubject, mediaSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { eventually } from "../../support/Eventually.ts"
import { type MediaServer, podcastFeedEpisodes } from "../../support/MediaServer.ts"
import type { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { outcomes, startSubscriptionStack, type SubscriptionStack, subscriptionEventsOf } from "./SubscriptionStack.ts"
import { createSubscription } from "../../support/Subscriptions.ts"

type Services = EventStore | NatsClient | CookieVault | SubscriptionStates

const KEY = randomBytes(32).toString("hex")
let stack: SubscriptionStack
let media: MediaServer
let aggregator: ManagedRuntime.ManagedRuntime<Services, never>

beforeAll(async () => {
  stack = await startSubscriptionStack({ name: "mds-subscription-cookies-", env: { COOKIES_ENCRYPTION_KEY: KEY } })
  media = stack.media
  // The aggregator, and beside it the gateway's side of the cookie vault (as the cookies API stores files).
  aggregator = (await stack.startAggregator(CookieVault.layer.pipe(Layer.provideMerge(AggregatorLayer)))) as ManagedRuntime.ManagedRuntime<
    Services,
    never
  >
}, 120_000)

afterAll(async () => {
  await aggregator?.dispose()
  await stack?.close()
})

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => aggregator.runPromise(effect)

const subscriptionEvents = (projectId: string, subscriptionId: string) => run(subscriptionEventsOf(projectId, subscriptionId))

/** Subscribes (backfill 2: the first check queues the two newest entries) and waits for the first check's outcome. */
const subscribeAndCheck = async (projectId: string) => {
  const subscriptionId = await run(createSubscription(projectId, media.urls.membersFeed, { backfill: 2 }))
  return eventually(
    () => subscriptionEvents(projectId, subscriptionId),
    (events) => outcomes(events).length >= 1,
    `the first check of ${subscriptionId}`,
    60_000
  )
}

const archiveCount = (projectId: string) =>
  run(
    Effect.gen(function* () {
      const { jsm } = yield* NatsClient
      const info = yield* Effect.promise(() => jsm.streams.info(ARCHIVE_STREAM.name, { subjects_filter: archiveSubject.within(projectId) }))
      return Object.keys(info.state.subjects ?? {}).length
    })
  )

describe("a subscription to a cookie-only feed", () => {
  const owner = newId("prj")
  const other = newId("prj")

  it("is checked with the project's cookies: the feed resolves as the project's own playlist and its entries are queued", async () => {
    const uploaded = media.memberSession()
    await run(
      Effect.gen(function* () {
        return yield* (yield* CookieVault).store(owner, "generic", media.memberCookies(), "uploaded")
      })
    )
    const events = await subscribeAndCheck(owner)
    const checked = outcomes(events)[0]
    expect(checked, JSON.stringify(events)).toMatchObject({ _tag: "SubscriptionChecked", found: podcastFeedEpisodes, queued: 2 })
    // The site accepted the uploaded session and rotated it: the check sent the project's cookies.
    expect(media.memberSession()).not.toBe(uploaded)

    const queued = events.find((e) => e._tag === "SubscriptionEntriesQueued")
    if (queued?._tag !== "SubscriptionEntriesQueued") throw new Error(`nothing queued: ${JSON.stringify(events)}`)
    const playlist = await run(
      Effect.gen(function* () {
        const store = yield* EventStore
        const batch = yield* store.readSubject(BatchEvent, batchSubject(owner, queued.batchId))
        const created = batch[0]?.event
        if (created?._tag !== "BatchCreated") return yield* Effect.die(new Error("the check's batch was not created"))
        const resolved = yield* store.readLast(MediaEvent, mediaSubject(created.mediaId))
        return Option.getOrThrow(resolved).event
      })
    )
    // Resolved with the owner's cookies, the playlist is the owner's alone (the one visibility rule).
    expect(playlist.projectId).toBe(owner)
    expect(isMediaVisibleTo(playlist, owner, Date.now())).toBe(true)
    expect(isMediaVisibleTo(playlist, other, Date.now())).toBe(false)
    expect(await archiveCount(owner)).toBe(2)
  }, 120_000)

  it("is invisible to another project: the same feed's check fails without cookies and queues nothing", async () => {
    const events = await subscribeAndCheck(other)
    expect(outcomes(events)[0], JSON.stringify(events)).toMatchObject({
      _tag: "SubscriptionCheckFailed",
      failuresInARow: 1,
      error: { code: "extraction_failed" }
    })
    // Refused by the site (no session sent), not answered from the owner's resolve.
    expect(JSON.stringify(outcomes(events)[0])).toContain("403")
    expect(events.some((e) => e._tag === "SubscriptionEntriesQueued")).toBe(false)
    expect(await archiveCount(other)).toBe(0)
    // The owner's archive is its own: untouched by the other project's subscription.
    expect(await archiveCount(owner)).toBe(2)
  }, 120_000)
})
