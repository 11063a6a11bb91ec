// A subscription to a members-only feed on a real nats-server, extractor (pinned yt-dlp) and aggregator: its checks
// resolve the feed with the project's stored cookies, and what they resolved stays invisible to another project.
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Layer, ManagedRuntime, Option, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CookieVault } from "@mds/shared/cookies/CookieVault"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { isMediaVisibleTo } from "@mds/shared/domain/media/MediaVisibility"
import { subscriptionCommands } from "@mds/shared/domain/subscription/SubscriptionCommands"
import { type SubscriptionEvent as SubscriptionEventType, SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { ARCHIVE_STREAM, batchSubject, mediaSubject, subscriptionSubject } from "@mds/shared/eventstore/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { ExtractorLayer } from "../../../services/extractor/src/ExtractorLayer.ts"
import { YT_DLP } from "../../../services/extractor/test/ExtractorHarness.ts"
import { eventually } from "../../support/Eventually.ts"
import { type MediaServer, podcastFeedEpisodes, startMediaServer } from "../../support/MediaServer.ts"
import { type NatsServer, startNatsServer } from "../../support/NatsServer.ts"

type Services = EventStore | NatsClient | CookieVault

const KEY = randomBytes(32).toString("hex")
let nats: NatsServer
let media: MediaServer
let dataDir: string
let extractor: ManagedRuntime.ManagedRuntime<unknown, never>
let aggregator: ManagedRuntime.ManagedRuntime<Services, never>

const withConfig = (env: Record<string, string>) =>
  Layer.mergeAll(
    ConfigProvider.layer(
      ConfigProvider.fromEnvRecord({
        NATS_URL: nats.url,
        DATA_DIR: dataDir,
        DOWNLOAD_URL_SECRET: "test-secret",
        API_KEY_PEPPER: "test-pepper",
        PUBLIC_BASE_URL: "http://files.test",
        COOKIES_ENCRYPTION_KEY: KEY,
        ...env
      })
    ),
    Layer.succeed(References.MinimumLogLevel, "Error")
  )

beforeAll(async () => {
  nats = await startNatsServer()
  media = await startMediaServer()
  dataDir = await mkdtemp(join(tmpdir(), "mds-subscription-cookies-"))
  extractor = ManagedRuntime.make(
    ExtractorLayer.pipe(Layer.provideMerge(withConfig({ YT_DLP_PATH: YT_DLP, EGRESS_ALLOW: media.hostPort })), Layer.orDie)
  ) as ManagedRuntime.ManagedRuntime<unknown, never>
  await extractor.runPromise(Effect.void)
  // The aggregator, and beside it the gateway's side of the cookie vault (as the cookies API stores files).
  aggregator = ManagedRuntime.make(
    CookieVault.layer.pipe(
      Layer.provideMerge(AggregatorLayer),
      Layer.provideMerge(withConfig({ SUBSCRIPTION_TICK_SECONDS: "3600" })),
      Layer.orDie
    )
  ) as ManagedRuntime.ManagedRuntime<Services, never>
  await aggregator.runPromise(Effect.void)
}, 120_000)

afterAll(async () => {
  await aggregator?.dispose()
  await extractor?.dispose()
  await media?.close()
  await nats?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

const run = <A, E>(effect: Effect.Effect<A, E, Services>) => aggregator.runPromise(effect)

const subscriptionEvents = (projectId: string, subscriptionId: string) =>
  run(
    Effect.gen(function* () {
      const stored = yield* (yield* EventStore).readSubject(SubscriptionEvent, subscriptionSubject(projectId, subscriptionId))
      return stored.map((item) => item.event)
    })
  )

const outcomes = (events: ReadonlyArray<SubscriptionEventType>) =>
  events.filter((e) => e._tag === "SubscriptionChecked" || e._tag === "SubscriptionCheckFailed")

/** Subscribes (backfill 2: the first check queues the two newest entries) and waits for the first check's outcome. */
const subscribeAndCheck = async (projectId: string) => {
  const subscriptionId = newId("sub")
  await run(
    subscriptionCommands(
      projectId,
      subscriptionId
    )({
      _tag: "CreateSubscription",
      subscriptionId,
      projectId,
      url: media.urls.membersFeed,
      platform: "generic",
      format: "audio_m4a",
      checkEveryMs: 3_600_000,
      filters: {},
      backfill: 2,
      now: Date.now()
    })
  )
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
      const info = yield* Effect.promise(() => jsm.streams.info(ARCHIVE_STREAM.name, { subjects_filter: `mds.archive.${projectId}.*` }))
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
