// Per-project cookies in the extractor: a members-only page is resolved and downloaded only with the project's stored
// cookies; each run gets its own copy and the cookies the site rotated are kept; other projects get nothing of it.
import { randomBytes } from "node:crypto"
import { Kvm } from "@nats-io/kv"
import { jetstream } from "@nats-io/jetstream"
import { ConfigProvider, Effect, Layer, ManagedRuntime, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { COOKIE_JARS_BUCKET, CookieVault } from "@mds/shared/application/cookies/CookieVault"
import { CookieJarEvent } from "@mds/shared/domain/cookies/CookieJarEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { cookieJarSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type MediaServer, podcastFeedEpisodes, startMediaServer } from "../../../test/support/MediaServer.ts"
import { type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

const KEY = randomBytes(32).toString("hex")

let media: MediaServer
let harness: ExtractorHarness
let vault: ManagedRuntime.ManagedRuntime<CookieVault | EventStore, never>

beforeAll(async () => {
  media = await startMediaServer()
  harness = await startExtractorHarness({ EGRESS_ALLOW: media.hostPort, COOKIES_ENCRYPTION_KEY: KEY })
  // The gateway's side of the vault, as the cookies API uses it.
  vault = ManagedRuntime.make(
    CookieVault.layer.pipe(
      Layer.provideMerge(JetStreamEventStore),
      Layer.provide(NatsClient.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ NATS_URL: harness.nats.url, COOKIES_ENCRYPTION_KEY: KEY }))),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
})

afterAll(async () => {
  await vault?.dispose()
  await harness?.close()
  await media?.close()
})

const withVault = <A, E>(f: (vault: CookieVault["Service"], store: EventStore["Service"]) => Effect.Effect<A, E>) =>
  vault.runPromise(
    Effect.gen(function* () {
      return yield* f(yield* CookieVault, yield* EventStore)
    })
  )

describe("per-project cookies", () => {
  const owner = newId("prj")
  const other = newId("prj")

  it("refuses the members page without cookies", async () => {
    expect(await harness.resolveFor(media.urls.members, owner)).toMatchObject({ _tag: "ResolveRejected" })
  })

  it("resolves with the project's cookies, keeps the rotated ones, and downloads with them", async () => {
    const uploaded = media.memberSession()
    await withVault((v) => v.store(owner, "generic", media.memberCookies(), "uploaded"))

    const reply = await harness.resolveFor(media.urls.members, owner)
    expect(reply._tag, JSON.stringify(reply)).toBe("ResolveSucceeded")
    expect(reply._tag === "ResolveSucceeded" && reply.media.projectId).toBe(owner)
    // The site rotated the session: the uploaded one is no longer accepted, the stored file holds the new one.
    expect(media.memberSession()).not.toBe(uploaded)
    const stored = await withVault((v) => v.load(owner, "generic"))
    expect(stored._tag === "Some" && stored.value).toContain(media.memberSession())
    const jars = await withVault((v) => v.list(owner))
    expect(jars).toMatchObject([{ platform: "generic", domains: ["127.0.0.1"], cookieCount: 1, change: "rotated" }])

    // A download of the page (a fresh extraction) works only with the rotated cookies.
    const { projectId, jobId } = await harness.queueJob(media.urls.members, "video_best", undefined, undefined, owner)
    const events = await harness.waitForEnd(projectId, jobId, 120_000)
    expect(
      events.map((e) => e._tag),
      JSON.stringify(events)
    ).toContain("JobCompleted")
  })

  it("records a playlist resolved with the project's cookies as the project's, like a single media", async () => {
    const reply = await harness.resolveFor(media.urls.membersFeed, owner, { playlist: true })
    expect(reply._tag, JSON.stringify(reply)).toBe("ResolveSucceeded")
    const playlist = reply._tag === "ResolveSucceeded" ? reply.media : null
    expect(playlist?.type).toBe("playlist")
    expect(playlist?.entries).toHaveLength(podcastFeedEpisodes)
    expect(playlist?.projectId).toBe(owner)
  })

  it("looks the cookies up under the URL's platform, whichever extractor handled the media", async () => {
    // A job by media id carries its media's platform: the extractor that handled it, here one without a curated id
    // (what yt-dlp's Mediasite extractor is mapped to). The cookies were uploaded under the platform of the URL's host.
    const { projectId, jobId } = await harness.queueJob(media.urls.members, "video_best", newId("med"), "mediasite", owner)
    const events = await harness.waitForEnd(projectId, jobId, 120_000)
    expect(events.at(-1)?._tag, JSON.stringify(events)).toBe("JobCompleted")
    expect(await withVault((v) => v.list(owner))).toMatchObject([{ platform: "generic", change: "rotated" }])
  })

  it("never shares them: another project is refused the same page", async () => {
    expect(await harness.resolveFor(media.urls.members, other)).toMatchObject({ _tag: "ResolveRejected" })
    expect(await harness.resolveFor(media.urls.membersFeed, other, { playlist: true })).toMatchObject({ _tag: "ResolveRejected" })
    const { projectId, jobId } = await harness.queueJob(media.urls.members, "video_best", undefined, undefined, other)
    const events = await harness.waitForEnd(projectId, jobId, 120_000)
    expect(events.at(-1)?._tag, JSON.stringify(events)).toBe("JobFailed")
  })

  it("keeps only ciphertext at rest and only metadata in events", async () => {
    const session = media.memberSession()
    const kv = await new Kvm(jetstream(harness.client)).open(COOKIE_JARS_BUCKET)
    const raw = await kv.get(`${owner}.generic`)
    expect(raw?.value.length).toBeGreaterThan(0)
    expect(Buffer.from(raw!.value).includes(Buffer.from(session))).toBe(false)
    expect(Buffer.from(raw!.value).includes(Buffer.from("mds_session"))).toBe(false)
    const events = await withVault((_, store) => store.readSubject(CookieJarEvent, cookieJarSubject.within(owner)))
    expect(events.length).toBeGreaterThanOrEqual(2)
    expect(JSON.stringify(events)).not.toContain(session)
    expect(JSON.stringify(events)).not.toContain("mds_session")
  })

  it("removes a project's cookies: the page is refused again", async () => {
    expect(await withVault((v) => v.remove(owner, "generic"))).toBe(true)
    expect(await withVault((v) => v.list(owner))).toEqual([])
    expect(await harness.resolveFor(media.urls.members, owner)).toMatchObject({ _tag: "ResolveRejected" })
  })
})
