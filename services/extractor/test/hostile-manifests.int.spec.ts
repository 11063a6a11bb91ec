// Hostile HLS/DASH manifests against the real extractor: whatever protocol or address they name, the canary sees no connection.
import { Effect, Metric } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ytDlpStarts } from "../src/warm/WarmStarts.ts"
import { type Canary, type HostileCase, type HostileServer, startCanary, startHostileServer } from "./HostileManifests.ts"
import { type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

/**
 * Every target as a segment; the proxy-protocol and loopback targets also disguised as .mp4 (ffprobe sniffs the body);
 * every URI position (key, SAMPLE-AES key, init section, variant, rendition, DASH) for httpproxy:. Each case costs a
 * yt-dlp run and up to two ffmpeg runs, so positions are not multiplied by every spelling.
 */
const forResolve = (all: ReadonlyArray<HostileCase>) =>
  all.filter(
    ({ name }) =>
      /^segment-.*\.m3u8$/.test(name) ||
      /^segment-(httpproxy-v4|httpproxy-v6|loopback)\.mp4$/.test(name) ||
      /-httpproxy-v4\.(m3u8|mpd)$/.test(name) ||
      name === "dash-httpproxy-v4.mp4" ||
      name === "init-section-loopback.m3u8" ||
      name === "dash-loopback.mpd"
  )

/**
 * Downloads take the paths resolve does not: yt-dlp's own HLS/DASH downloader, and ffmpeg, to which yt-dlp hands
 * encrypted (SAMPLE-AES) playlists and some DASH. Each failing fragment costs yt-dlp's retries, so these are the
 * cases that reach a different tool or position, not every spelling again.
 */
const DOWNLOAD_CASES = [
  "segment-httpproxy-v4.m3u8",
  "segment-httpproxy-v4.mp4",
  "segment-httpproxy-v6.m3u8",
  "segment-loopback.m3u8",
  "segment-mapped-v6.m3u8",
  "aes-key-httpproxy-v4.m3u8",
  "sample-aes-key-httpproxy-v4.m3u8",
  "sample-aes-key-loopback.m3u8",
  "init-section-httpproxy-v4.m3u8",
  "variant-httpproxy-v4.m3u8",
  "dash-httpproxy-v4.mpd",
  "dash-loopback.mpd"
]
const forDownload = (all: ReadonlyArray<HostileCase>) => all.filter(({ name }) => DOWNLOAD_CASES.includes(name))

/** Platforms often set these to reach internal services directly; ffmpeg honours them over -http_proxy. */
const NO_PROXY_ENV = { no_proxy: "127.0.0.1,::1,localhost,169.254.169.254,.svc", NO_PROXY: "127.0.0.1,::1,localhost,*" }

/**
 * The cases no_proxy could change: those naming the canary by a plain http URL (a tool that saw no_proxy would connect
 * to it directly instead of through the egress proxy). The others name a protocol or a local source the tools refuse
 * whatever the environment, so with no_proxy set they would only repeat the run without it.
 */
const namesCanaryOverHttp = ({ name }: HostileCase) => /(^|-)(loopback|decimal|hex|mapped-v6)\./.test(name)

const withEnv = async <A>(env: Readonly<Record<string, string>>, f: () => Promise<A>): Promise<A> => {
  const saved = Object.keys(env).map((name) => [name, process.env[name]] as const)
  Object.assign(process.env, env)
  try {
    return await f()
  } finally {
    for (const [name, value] of saved) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
}

const starts = (harness: ExtractorHarness, start: "warm" | "cold") =>
  harness.run(Effect.map(Metric.value(Metric.withAttributes(ytDlpStarts, { start })), (state) => state.count))

/**
 * At most `width` runs at once: every case starts yt-dlp (Python) and often ffprobe, and the machine has two cores.
 * A pool, not batches: the next case starts as soon as any run ends instead of waiting for the slowest of a batch.
 */
const inPool = async <A>(items: ReadonlyArray<A>, width: number, f: (item: A) => Promise<void>) => {
  let next = 0
  const runner = async () => {
    while (next < items.length) await f(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, runner))
}

const suite = (confinement: "namespace" | "network-policy") =>
  describe(`EGRESS_CONFINEMENT=${confinement}`, () => {
    let canary: Canary
    let hostile: HostileServer
    let h: ExtractorHarness
    let resolveCases: ReadonlyArray<HostileCase> = []
    let downloadCases: ReadonlyArray<HostileCase> = []
    let before = { warm: 0, cold: 0 }

    beforeAll(async () => {
      canary = await startCanary()
      hostile = await startHostileServer(canary)
      resolveCases = forResolve(hostile.cases)
      downloadCases = forDownload(hostile.cases)
      expect(downloadCases.length).toBe(DOWNLOAD_CASES.length)
      expect(resolveCases.length).toBe(25)
      // With no_proxy set: every spelling of an http URL to the canary in a segment, the ones disguised as .mp4, the
      // init section and DASH for resolve; the native downloader, ffmpeg (SAMPLE-AES) and DASH for downloads.
      expect(resolveCases.filter(namesCanaryOverHttp).length).toBe(8)
      expect(downloadCases.filter(namesCanaryOverHttp).length).toBe(4)
      // A refused or broken hop is not worth retrying here: every job is one run.
      h = await startExtractorHarness({
        EGRESS_ALLOW: hostile.hostPort,
        EGRESS_CONFINEMENT: confinement,
        WORKER_CONCURRENCY: "4",
        DOWNLOAD_RETRIES: "0"
      })
      before = { warm: await starts(h, "warm"), cold: await starts(h, "cold") }
    })

    afterAll(async () => {
      await h?.close()
      await hostile?.close()
      await canary?.close()
    })

    for (const [label, env, cases] of [
      ["every hostile manifest, without no_proxy", {}, (all: ReadonlyArray<HostileCase>) => all],
      [
        "every hostile manifest naming the canary over http, with no_proxy and NO_PROXY set",
        NO_PROXY_ENV,
        (all: ReadonlyArray<HostileCase>) => all.filter(namesCanaryOverHttp)
      ]
    ] as const) {
      it(`resolve of ${label}: the canary sees no connection`, async () => {
        await withEnv(env, () =>
          inPool(cases(resolveCases), 4, async (c) => {
            const before = hostile.fetches(c.name)
            await h.resolve(c.url)
            expect(hostile.fetches(c.name), `${c.name} was never fetched`).toBeGreaterThan(before)
            expect(canary.connections(), c.name).toBe(0)
          })
        )
        expect(canary.connections()).toBe(0)
      }, 600_000)

      it(`download of ${label}: the canary sees no connection`, async () => {
        await withEnv(env, () =>
          inPool(cases(downloadCases), 4, async (c) => {
            const before = hostile.fetches(c.name)
            const { projectId, jobId } = await h.queueJob(c.url, "video_best")
            const last = (await h.waitForEnd(projectId, jobId, 180_000)).at(-1)
            expect(hostile.fetches(c.name), `${c.name} was never fetched`).toBeGreaterThan(before)
            expect(canary.connections(), c.name).toBe(0)
            // Nothing is made of a manifest whose hops were refused or broken. (A manifest disguised as .mp4 is
            // fetched as the file it claims to be: its text, no hop of it opened.)
            if (!c.name.endsWith(".mp4")) expect(last?._tag, c.name).toBe("JobFailed")
          })
        )
        expect(canary.connections()).toBe(0)
      }, 900_000)
    }

    it("a download of a playlist naming its segments by another protocol fails as url_not_allowed, naming the protocol", async () => {
      const c = hostile.cases.find(({ name }) => name === "segment-httpproxy-v4.m3u8")!
      const { projectId, jobId } = await h.queueJob(c.url, "video_best")
      const last = (await h.waitForEnd(projectId, jobId, 180_000)).at(-1)
      expect(last?._tag === "JobFailed" && last.error, JSON.stringify(last)).toMatchObject({
        code: "url_not_allowed",
        message: 'the media names a "httpproxy:" URI; only http and https URIs are fetched'
      })
    }, 300_000)

    it("a download whose init section (EXT-X-MAP) was refused fails as url_not_allowed, as resolve does", async () => {
      const c = hostile.cases.find(({ name }) => name === "init-section-loopback.m3u8")!
      const reply = await h.resolve(c.url)
      expect(reply._tag === "ResolveRejected" && reply.code).toBe("url_not_allowed")
      const { projectId, jobId } = await h.queueJob(c.url, "video_best")
      const last = (await h.waitForEnd(projectId, jobId, 180_000)).at(-1)
      expect(last?._tag === "JobFailed" && last.error.code, JSON.stringify(last)).toBe("url_not_allowed")
    }, 300_000)

    // The harness waits for the warm runner: every case above ran in a child it forked (cold runs: ssrf.int.spec.ts).
    it("every yt-dlp run of these cases was forked by the warm runner", async () => {
      expect(await starts(h, "cold")).toBe(before.cold)
      expect(await starts(h, "warm")).toBeGreaterThan(before.warm + downloadCases.length)
    })
  })

suite("namespace")
