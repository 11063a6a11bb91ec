// The warm yt-dlp runner: runs forked from it share nothing and are confined as cold runs are (stopping one:
// process-tree.int.spec.ts), and the runner survives its own crash (only the run on it fails, retryably) and is replaced
// when the fleet's release changes.
import { randomBytes } from "node:crypto"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { createServer as createHttpServer, type Server } from "node:http"
import { type AddressInfo, createServer, type Server as NetServer } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Fiber, Metric, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { YtDlpReleaseChosen } from "@mds/shared/domain/release/YtDlpReleaseEvent"
import { parseEgressAllowList } from "@mds/shared/egress/EgressAllowList"
import { makeEgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { EXTRACTOR_CATALOG_SUBJECT, YT_DLP_CHOICE_SUBJECT } from "@mds/shared/nats/Subjects"
import { eventually } from "../../../test/support/Eventually.ts"
import { ensureMediaFixtures } from "../../../test/support/MediaFixtures.ts"
import { type EgressProxy, startEgressProxy } from "../src/egress/EgressProxy.ts"
import { WarmRunner } from "../src/warm/WarmRunner.ts"
import { ytDlpStarts } from "../src/warm/WarmStarts.ts"
import { classifyFailure } from "../src/ytdlp/classifyFailure.ts"
import { YtDlp } from "../src/ytdlp/YtDlp.ts"
import { YtDlpFailed } from "../src/ytdlp/YtDlpProcess.ts"
import { baseFlags, CURL_DOWNLOADER_FLAGS } from "../src/ytdlp/YtDlpFlags.ts"
import { type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"
import { descendantsOf, environmentOf, isAlive, namespaceOf } from "../../../test/support/ProcessTree.ts"
import { installLocalRelease } from "./LocalRelease.ts"

/** A release of another version, made locally: the pinned yt-dlp copied into a venv of its own with its version changed. */
const OTHER_VERSION = "2099.1.1"
const SECRET = `leak-${randomBytes(6).toString("hex")}`

interface SiteRequest {
  readonly path: string
  readonly query: string
  readonly cookie: string | undefined
  readonly userAgent: string
}

let clip: Buffer
let site: Server
let origin = ""
const requests: Array<SiteRequest> = []
/** The second request of /held.mp4 of each query (the download after the extraction) sends half and hangs. */
const heldResponses = new Set<import("node:http").ServerResponse>()
let canary: NetServer
let canaryPort = 0
let canaryConnections = 0
let releasesDir: string
let harness: ExtractorHarness
let proxy: EgressProxy
let work: string

const listen = (server: Server | NetServer) =>
  new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as AddressInfo).port)))

beforeAll(async () => {
  clip = await readFile((await ensureMediaFixtures()).clipMp4)
  site = createHttpServer((req, res) => {
    const url = new URL(req.url ?? "/", "http://site")
    requests.push({
      path: url.pathname,
      query: url.search,
      cookie: req.headers.cookie,
      userAgent: String(req.headers["user-agent"] ?? "")
    })
    if (url.pathname === "/set") {
      // The cookie a platform sets: kept for the rest of this run, never for another.
      return void res.writeHead(302, { location: `/clip.mp4${url.search}`, "set-cookie": `session=${SECRET}; Path=/` }).end()
    }
    // Ranges as a real server answers them: a run tried again resumes its partial file.
    const from = Number(/^bytes=(\d+)-$/.exec(req.headers.range ?? "")?.[1] ?? 0)
    const body = clip.subarray(from)
    res.writeHead(from > 0 ? 206 : 200, {
      "content-type": "video/mp4",
      "content-length": String(body.length),
      "accept-ranges": "bytes",
      ...(from > 0 ? { "content-range": `bytes ${from}-${clip.length - 1}/${clip.length}` } : {})
    })
    if (req.method === "HEAD") return void res.end()
    const seen = requests.filter((r) => r.path === url.pathname && r.query === url.search).length
    if (url.pathname === "/held.mp4" && seen === 2) {
      heldResponses.add(res)
      return void res.write(body.subarray(0, body.length >> 1))
    }
    res.end(body)
  })
  const port = await listen(site)
  origin = `http://127.0.0.1:${port}`
  canary = createServer((socket) => {
    canaryConnections++
    socket.destroy()
  })
  canaryPort = await listen(canary)
  releasesDir = await mkdtemp(join(tmpdir(), "mds-warm-releases-"))
  work = await mkdtemp(join(tmpdir(), "mds-warm-work-"))
  proxy = await startEgressProxy(makeEgressPolicy(parseEgressAllowList(`127.0.0.1:${port}`), async () => []))
  harness = await startExtractorHarness({
    EGRESS_ALLOW: `127.0.0.1:${port}`,
    YT_DLP_RELEASES_DIR: releasesDir,
    YT_DLP_RELEASE_POLL_SECONDS: "0.5",
    DOWNLOAD_RETRY_BASE_SECONDS: "0.2"
  })
}, 120_000)

afterAll(async () => {
  for (const res of heldResponses) res.destroy()
  await harness?.close()
  await proxy?.close()
  site?.closeAllConnections()
  await new Promise<void>((resolve) => (site?.listening ? site.close(() => resolve()) : resolve()))
  await new Promise<void>((resolve) => (canary?.listening ? canary.close(() => resolve()) : resolve()))
  await rm(releasesDir, { recursive: true, force: true })
  await rm(work, { recursive: true, force: true })
})

const starts = (start: "warm" | "cold") =>
  harness.run(Effect.map(Metric.value(Metric.withAttributes(ytDlpStarts, { start })), (state) => state.count))

const status = () =>
  harness.run(
    Effect.gen(function* () {
      return (yield* WarmRunner).status()
    })
  )

/** The pid of the runner taking runs now (waits until one does). */
const runnerPid = async () => {
  const ready = (await eventually(status, (s) => "pid" in s.ready, "the warm runner to be ready", 60_000)).ready
  if (!("pid" in ready)) throw new Error("unreachable")
  return ready.pid
}

/** `yt-dlp --version`, run as every run is (warm when the runner can take it). */
const ytDlpVersion = () =>
  harness.run(
    Effect.gen(function* () {
      return yield* (yield* YtDlp).version
    })
  )

/** A yt-dlp run through the extractor's own YtDlp service, forked so that the test can interrupt it. */
const forkRun = (url: string, flags: Record<string, string | number | boolean | ReadonlyArray<string>>) =>
  harness.run(
    Effect.forkDetach(
      Effect.gen(function* () {
        return yield* (yield* YtDlp).run(url, flags, { cwd: work })
      })
    )
  )

const downloadFlags = (dir: string) => ({
  ...baseFlags(proxy.url, "ffmpeg"),
  ...CURL_DOWNLOADER_FLAGS,
  paths: join(work, dir),
  output: "media.%(ext)s"
})

/** The run's runner (the runner process's child that leads its own group) once its download hangs on /held.mp4. */
const heldRun = async (zygote: number, query: string) => {
  await eventually(
    async () => requests.filter((r) => r.path === "/held.mp4" && r.query === query).length,
    (count) => count >= 2,
    "the download to hang"
  )
  const tree = await descendantsOf(zygote)
  const runner = tree.find((p) => p.ppid === zygote && p.pgid === p.pid)
  if (runner === undefined) throw new Error(`no run under the warm runner: ${JSON.stringify(tree)}`)
  return { runner, tree: await descendantsOf(runner.pid) }
}

describe("the warm runner", () => {
  it("runs share nothing: a cookie a page set in one run is not sent by the next", async () => {
    await runnerPid()
    const [warm, cold] = [await starts("warm"), await starts("cold")]

    expect((await harness.resolve(`${origin}/set?run=1`))._tag).toBe("ResolveSucceeded")
    const first = requests.filter((r) => r.query === "?run=1" && r.path === "/clip.mp4" && !r.userAgent.startsWith("Lavf"))
    // Within its own run yt-dlp keeps the cookie: what the next run would send if anything carried over.
    expect(first.length).toBeGreaterThan(0)
    expect(first.every((r) => r.cookie === `session=${SECRET}`)).toBe(true)

    expect((await harness.resolve(`${origin}/clip.mp4?run=2`))._tag).toBe("ResolveSucceeded")
    const second = requests.filter((r) => r.query === "?run=2")
    expect(second.length).toBeGreaterThan(0)
    expect(second.map((r) => r.cookie)).toEqual(second.map(() => undefined))

    expect(await starts("warm")).toBeGreaterThanOrEqual(warm + 2)
    expect(await starts("cold")).toBe(cold)
  })

  it("a forked run is confined as a cold one: its own namespaces, only its proxy, none of the extractor's secrets", async () => {
    const zygote = await runnerPid()
    process.env["MDS_TEST_SECRET"] = SECRET
    let fiber: Fiber.Fiber<unknown, unknown> | undefined
    try {
      fiber = await forkRun(`${origin}/held.mp4?confined`, downloadFlags("confined"))
      const { tree } = await heldRun(zygote, "?confined")
      const ytdlp = tree.find((p) => p.comm === "yt-dlp")
      const curl = tree.find((p) => p.comm === "curl")
      expect(ytdlp, JSON.stringify(tree)).toBeDefined()
      expect(curl, JSON.stringify(tree)).toBeDefined()
      for (const kind of ["net", "pid", "user"] as const) {
        const own = await namespaceOf("self", kind)
        expect(await namespaceOf(ytdlp?.pid ?? 0, kind)).not.toBe(own)
        expect(await namespaceOf(curl?.pid ?? 0, kind)).toBe(await namespaceOf(ytdlp?.pid ?? 0, kind))
      }
      // The tool yt-dlp started got the run's environment: the run's proxy, nothing of the extractor's.
      const env = await environmentOf(curl?.pid ?? 0)
      expect(env["http_proxy"]).toBe(proxy.url)
      expect(env["HTTPS_PROXY"]).toBe(proxy.url)
      expect(Object.values(env)).not.toContain(SECRET)
      expect(Object.keys(env).filter((name) => /no_proxy|DOWNLOAD_URL_SECRET|NATS_URL/i.test(name))).toEqual([])
    } finally {
      delete process.env["MDS_TEST_SECRET"]
      if (fiber !== undefined) await harness.run(Fiber.interrupt(fiber))
    }

    // Without a proxy a run has no network at all: the host's loopback port is out of its reach.
    const before = await starts("warm")
    const direct = await harness.run(
      Effect.exit(
        Effect.gen(function* () {
          return yield* (yield* YtDlp).run(`http://127.0.0.1:${canaryPort}/x.mp4`, { ignoreConfig: true, noCacheDir: true })
        })
      )
    )
    expect(Exit.isFailure(direct)).toBe(true)
    expect(await starts("warm")).toBe(before + 1)
    expect(canaryConnections).toBe(0)
  })

  it("a crash of the runner fails only the run on it, retryably: the job retries it and completes; the runner is restarted", async () => {
    const zygote = await runnerPid()
    const lost = await forkRun(`${origin}/held.mp4?lost`, downloadFlags("lost"))
    await heldRun(zygote, "?lost")
    process.kill(zygote, "SIGKILL")
    const exit = await harness.run(Fiber.await(lost))
    expect(Exit.isFailure(exit)).toBe(true)
    const failure = Exit.isFailure(exit) ? exit.cause.reasons.find((reason) => reason._tag === "Fail")?.error : undefined
    expect(failure).toBeInstanceOf(YtDlpFailed)
    expect(classifyFailure((failure as YtDlpFailed).stderr, false)).toBe("transient")

    // A job whose run is lost the same way: tried again inside the job (cold or on the restarted runner), it completes.
    const restarted = await eventually(status, (s) => "pid" in s.ready && s.ready.pid !== zygote, "the runner to be restarted", 60_000)
    const second = "pid" in restarted.ready ? restarted.ready.pid : 0
    const job = await harness.queueJob(`${origin}/held.mp4?job`, "video_best")
    await heldRun(second, "?job")
    process.kill(second, "SIGKILL")
    const events = await harness.waitForEnd(job.projectId, job.jobId, 120_000)
    expect(
      events.map((e) => e._tag),
      JSON.stringify(events)
    ).toContain("JobCompleted")
    expect(events.filter((e) => e._tag === "JobStarted")).toHaveLength(1)
    await eventually(status, (s) => "pid" in s.ready && s.ready.pid !== second, "the runner to be restarted again", 60_000)
  })

  it("a release change replaces the runner: the next run reports the new version, the old runner stops", async () => {
    const old = await runnerPid()
    await installLocalRelease(releasesDir, OTHER_VERSION)
    await harness.run(
      Effect.gen(function* () {
        yield* (yield* EventStore).append(
          YtDlpReleaseChosen,
          YT_DLP_CHOICE_SUBJECT,
          { _tag: "YtDlpReleaseChosen", v: 1, choice: OTHER_VERSION, at: Date.now() },
          { msgId: `choose-${OTHER_VERSION}-${Date.now()}` }
        )
      })
    )
    // The catalog is published by the first run after the switch: it reports the new version.
    const catalog = () =>
      harness.run(
        Effect.gen(function* () {
          const last = yield* (yield* EventStore).readLast(ExtractorCatalogPublished, EXTRACTOR_CATALOG_SUBJECT)
          return Option.map(last, (stored) => stored.event.ytDlpVersion)
        })
      )
    await eventually(catalog, (version) => Option.getOrNull(version) === OTHER_VERSION, "the catalog of the new release", 240_000)
    const replaced = await eventually(
      status,
      (s) => "pid" in s.ready && s.ready.version === OTHER_VERSION,
      "the runner of the new release",
      60_000
    )
    expect(replaced.path).toContain(releasesDir)
    await eventually(
      () => isAlive(old),
      (alive) => !alive,
      "the old runner to stop",
      10_000
    )
    const before = await starts("warm")
    expect(await ytDlpVersion()).toBe(OTHER_VERSION)
    expect(await starts("warm")).toBe(before + 1)
  }, 300_000)
})
