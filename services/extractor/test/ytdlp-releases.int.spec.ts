// The fleet's yt-dlp release: an extractor installs a chosen release from the package index, checks it and switches;
// a release whose check fails (a canary that does not answer) is rolled back. Jobs complete before and after each change.
import { readFile } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { YtDlpReleaseChosen, YtDlpWorkerEvent } from "@mds/shared/domain/release/YtDlpReleaseEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { EXTRACTOR_CATALOG_SUBJECT, YT_DLP_CHOICE_SUBJECT, ytDlpWorkerSubject } from "@mds/shared/nats/Subjects"
import { eventually } from "../../../test/support/Eventually.ts"
import { ensureMediaFixtures } from "../../../test/support/MediaFixtures.ts"
import { type MediaServer, startMediaServer } from "../../../test/support/MediaServer.ts"
import { downloadCompletes, type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

/** Two real releases from the package index: the pin of deploy/local/setup.sh and the one before it. */
const PINNED = "2026.10.26"
const PREVIOUS = "2026.10.21"
const WORKER = "releases-test-worker"
/** Installing a release (a venv, yt-dlp and curl_cffi) takes a while on a busy machine. */
const INSTALL_WAIT_MS = 300_000

/** Listens on a free loopback port; the port. */
const listenOnLoopback = async (server: Server) => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  return (server.address() as AddressInfo).port
}

/** Stops the server, dropping the connections it holds. */
const closeServer = (server: Server | undefined) =>
  new Promise<void>((resolve) => {
    server?.closeAllConnections()
    if (server?.listening) server.close(() => resolve())
    else resolve()
  })

/** Serves the clip; from its second request on (the download after the extraction) it sends half and holds the rest until `release`. */
const startHeldClip = async (clip: Buffer) => {
  let requests = 0
  let release: () => void = () => undefined
  const released = new Promise<void>((resolve) => (release = resolve))
  const server = createServer((req, res) => {
    res.writeHead(200, { "content-type": "video/mp4", "content-length": String(clip.length) })
    if (req.method === "HEAD") return void res.end()
    if (++requests < 2) return void res.end(clip)
    res.write(clip.subarray(0, clip.length >> 1))
    void released.then(() => res.end(clip.subarray(clip.length >> 1)))
  })
  const port = await listenOnLoopback(server)
  return { server, port, url: `http://127.0.0.1:${port}/held.mp4`, requests: () => requests, release }
}

let media: MediaServer
/** The operator's canary: a page that sends yt-dlp to the clip; closing it makes every later check fail. */
let canary: { readonly server: Server; readonly port: number; readonly url: string }
let held: Awaited<ReturnType<typeof startHeldClip>>
let harness: ExtractorHarness

beforeAll(async () => {
  media = await startMediaServer()
  const canaryServer = createServer((_req, res) => res.writeHead(302, { location: media.urls.mp4 }).end())
  const canaryPort = await listenOnLoopback(canaryServer)
  canary = { server: canaryServer, port: canaryPort, url: `http://127.0.0.1:${canaryPort}/canary` }
  held = await startHeldClip(await readFile((await ensureMediaFixtures()).clipMp4))
  harness = await startExtractorHarness({
    EGRESS_ALLOW: `${media.hostPort},127.0.0.1:${canary.port},127.0.0.1:${held.port}`,
    WORKER_ID: WORKER,
    YT_DLP_RELEASE_POLL_SECONDS: "0.5",
    YT_DLP_CANARY_URLS: canary.url
  })
}, 120_000)

afterAll(async () => {
  held?.release()
  await harness?.close()
  await closeServer(held?.server)
  await closeServer(canary?.server)
  await media?.close()
})

const store = <A, E>(f: (store: EventStore["Service"]) => Effect.Effect<A, E>) =>
  harness.run(
    Effect.gen(function* () {
      return yield* f(yield* EventStore)
    })
  )

const reports = async () =>
  (await store((s) => s.readSubject(YtDlpWorkerEvent, ytDlpWorkerSubject.all)))
    .map((stored) => stored.event)
    .filter((e) => e.workerId === WORKER)

/** The first report made since `since` (ms) that matches; any other verdict since then fails the wait at once. */
const waitForReport = async (since: number, matches: (event: YtDlpWorkerEvent) => boolean) => {
  const { found, other } = await eventually(
    async () => {
      const recent = (await reports()).filter((event) => event.at >= since)
      return { found: recent.find(matches), other: recent.find((e) => e._tag !== "YtDlpReleaseRunning" && !matches(e)) }
    },
    ({ found, other }) => found !== undefined || other !== undefined,
    "a matching release report",
    INSTALL_WAIT_MS
  )
  if (found !== undefined) return found
  throw new Error(`unexpected release report: ${JSON.stringify(other)}`)
}

const choose = (choice: string) =>
  store((s) =>
    s.append(
      YtDlpReleaseChosen,
      YT_DLP_CHOICE_SUBJECT,
      { _tag: "YtDlpReleaseChosen", v: 1, choice, at: Date.now() },
      { msgId: `choose-${choice}-${Date.now()}` }
    )
  )

const catalogVersion = async () =>
  Option.getOrThrow(await store((s) => s.readLast(ExtractorCatalogPublished, EXTRACTOR_CATALOG_SUBJECT))).event.ytDlpVersion

describe("yt-dlp releases", () => {
  it("switches to a chosen release after its check, and rolls back one whose check fails", async () => {
    const started = await waitForReport(0, (e) => e._tag === "YtDlpReleaseRunning")
    expect(started).toMatchObject({ version: PINNED })
    await downloadCompletes(harness, media.urls.mp4)

    // A download that is under way (its file half sent) while the release switches: it finishes on the old binary.
    const running = await harness.queueJob(held.url, "video_best")
    await expect.poll(held.requests, { timeout: 60_000 }).toBeGreaterThanOrEqual(2)

    let seen = Date.now()
    await choose(PREVIOUS)
    const activated = await waitForReport(seen, (e) => e._tag === "YtDlpReleaseActivated" && e.version === PREVIOUS)
    expect(activated).toMatchObject({ choice: PREVIOUS, previous: PINNED })
    held.release()
    const runningEvents = await harness.waitForEnd(running.projectId, running.jobId, 120_000)
    expect(
      runningEvents.map((e) => e._tag),
      JSON.stringify(runningEvents)
    ).toContain("JobCompleted")
    expect(runningEvents.filter((e) => e._tag === "JobStarted")).toHaveLength(1)
    // The catalog is published again by the yt-dlp that new runs use.
    await expect.poll(catalogVersion, { timeout: 30_000 }).toBe(PREVIOUS)
    await downloadCompletes(harness, media.urls.mp4)

    await closeServer(canary.server)
    seen = Date.now()
    await choose(PINNED)
    const rejected = await waitForReport(seen, (e) => e._tag === "YtDlpReleaseRejected")
    expect(rejected).toMatchObject({ choice: PINNED, version: PINNED, kept: PREVIOUS })
    expect(rejected._tag === "YtDlpReleaseRejected" && rejected.reason).toContain(`canary ${canary.url} failed`)
    expect(await catalogVersion()).toBe(PREVIOUS)
    await downloadCompletes(harness, media.urls.mp4)
  }, 900_000)

  it("refuses a choice that is no release: the install fails and the running release stays", async () => {
    const seen = Date.now()
    await choose("2026.1.1.999")
    const rejected = await waitForReport(seen, (e) => e._tag === "YtDlpReleaseRejected" && e.choice === "2026.1.1.999")
    expect(rejected).toMatchObject({ version: null, kept: PREVIOUS })
    await downloadCompletes(harness, media.urls.mp4)
  }, 600_000)
})
