// Fragmented media at a CDN's pace (80 ms to the first byte, 2 MB/s per connection): the service by url and by
// media_id against yt-dlp run by hand with its default and with -N 8, a sweep of -N, the fixed cost of a 5 MB job by
// media_id against curl, the extractor's peak RSS with four fragmented jobs at once, and a 20 s clip of each stream
// against yt-dlp by hand with --download-sections. MDS_BENCH_FRAGMENT_PARTS=clips (or a comma list of streams, egress,
// sweep, small, rss, clips) runs only those parts.
import { execFile } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { parseEgressAllowList } from "@mds/shared/egress/EgressAllowList"
import { makeEgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { startEgressProxy } from "../services/extractor/src/egress/EgressProxy.ts"
import { ensureFragmentedFixtures } from "../test/support/FragmentedFixtures.ts"
import { ffmpeg } from "../test/support/MediaFixtures.ts"
import { startPacedCdn } from "../test/support/PacedCdn.ts"
import { rssBytes, sampleRss } from "./support/ProcessMemory.ts"
import { median, note, printSeries, printTable, type Row, relativeTo } from "./support/Report.ts"
import { api, startBenchStack, waitForJob } from "./support/Stack.ts"

const run = promisify(execFile)
const YT_DLP = join(import.meta.dirname, "..", ".tools", "venv", "bin", "yt-dlp")
const FIRST_BYTE_MS = 80
const BYTES_PER_SECOND = 2 * 1024 * 1024
/** The machine is shared: few samples, interleaved, medians; yt-dlp's default (the slow one) once. */
const SAMPLES = Number(process.env["MDS_BENCH_FRAGMENT_SAMPLES"] ?? 3)
const PARTS = new Set((process.env["MDS_BENCH_FRAGMENT_PARTS"] ?? "streams,egress,sweep,small,rss,clips").split(","))
/** The clip: 20 s from the middle of the 60 s streams, keyframe cuts (the API's default). */
const CLIP = { start: 20, end: 40, precise: false } as const

const fixtures = await ensureFragmentedFixtures()
const cdn = await startPacedCdn({ root: fixtures.dir, firstByteMs: FIRST_BYTE_MS, bytesPerSecond: BYTES_PER_SECOND })
// The fixed-cost case: a 5 MB mp4 from a server that answers at once, so the job's own overhead is what differs from curl.
const smallDir = await mkdtemp(join(tmpdir(), "mds-bench-small-"))
await ffmpeg(["-i", join(fixtures.hlsDir, "index.m3u8"), "-t", "20", "-c", "copy", "-bsf:a", "aac_adtstoasc", "small.mp4"], smallDir)
const origin = await startPacedCdn({ root: smallDir, firstByteMs: 0, bytesPerSecond: null })

const bench = await startBenchStack({
  env: { EGRESS_ALLOW: `${cdn.hostPort},${origin.hostPort}`, WORKER_CONCURRENCY: "4" }
})
const work = await mkdtemp(join(tmpdir(), "mds-bench-fragments-"))
try {
  const { stack } = bench
  const { key } = await stack.provisionKey()

  const job = async (source: { url: string } | { media_id: string }, as = key, section?: typeof CLIP) => {
    const started = performance.now()
    const queued = await api(stack.baseUrl, "POST", "/media/download", as, {
      ...source,
      format: "video_best",
      ...(section === undefined ? {} : { section })
    })
    if (queued.status !== 202) throw new Error(`queueing failed: ${queued.text}`)
    const done = await waitForJob(stack.baseUrl, as, queued.json.data.job_id, { intervalMs: 25, timeoutMs: 300_000 })
    if (done.json.data.status !== "completed") throw new Error(`the job did not complete: ${done.text}\n${stack.logs()}`)
    return (performance.now() - started) / 1000
  }
  const mediaIdOf = async (url: string): Promise<string> => {
    const resolved = await api(stack.baseUrl, "POST", "/media/resolve", key, { url })
    if (resolved.status !== 200) throw new Error(`resolve failed: ${resolved.text}`)
    return resolved.json.data.id
  }
  /** yt-dlp as one would run it by hand, straight to the CDN (no proxy, no confinement), the service's format. */
  let handRuns = 0
  const byHand = async (url: string, fragments: number | null, proxyUrl?: string, section?: typeof CLIP) => {
    const dir = join(work, `hand-${handRuns++}`)
    const started = performance.now()
    await run(
      YT_DLP,
      [
        "--ignore-config",
        "--no-cache-dir",
        "--quiet",
        "--format",
        "bv*+ba/b",
        "--merge-output-format",
        "mp4",
        "--paths",
        dir,
        "--output",
        "media.%(ext)s",
        ...(fragments === null ? [] : ["--concurrent-fragments", String(fragments)]),
        ...(proxyUrl === undefined ? [] : ["--proxy", proxyUrl]),
        ...(section === undefined ? [] : ["--download-sections", `*${section.start}-${section.end}`]),
        "--",
        url
      ],
      { maxBuffer: 16 * 1024 * 1024 }
    )
    const seconds = (performance.now() - started) / 1000
    await rm(dir, { recursive: true, force: true })
    return seconds
  }
  const seconds = (values: ReadonlyArray<number>) => values.map((s) => s.toFixed(2)).join(", ")

  if (PARTS.has("streams")) {
    const rows: Array<Row> = []
    for (const [label, url] of [
      ["HLS, 60 × 1 s fragments", `${cdn.origin}/hls/index.m3u8`],
      ["DASH, 60 × 1 s video + 60 audio fragments", `${cdn.origin}/dash/manifest.mpd`]
    ] as const) {
      const mediaId = await mediaIdOf(url)
      const byUrl: Array<number> = []
      const byMedia: Array<number> = []
      const handN8: Array<number> = []
      for (let i = 0; i < SAMPLES; i++) {
        note(`${label}: sample ${i + 1}/${SAMPLES}: service by url, by media_id, yt-dlp -N 8 by hand`)
        byUrl.push(await job({ url }))
        byMedia.push(await job({ media_id: mediaId }))
        handN8.push(await byHand(url, 8))
      }
      note(`${label}: yt-dlp's default by hand (once)`)
      const handDefault = await byHand(url, null)
      note(
        `${label}: by url ${seconds(byUrl)} s; by media_id ${seconds(byMedia)} s; -N 8 ${seconds(handN8)} s; default ${handDefault.toFixed(2)} s`
      )
      const n8 = { label: "yt-dlp -N 8 by hand", value: median(handN8) }
      const slow = { label: "yt-dlp default by hand", value: handDefault }
      /** "At least 3× faster than yt-dlp's default": the ratio column reads at most 0.33×. */
      const threeTimesFaster = (metric: string, value: number): Row => ({
        metric,
        value,
        unit: "s",
        reference: slow,
        target: "≥ 3× faster than yt-dlp default (≤ 0.33×)",
        met: value * 3 <= slow.value
      })
      rows.push(
        relativeTo(`${label}: service by url`, median(byUrl), "s", n8, { bound: "≤", times: 1.3, of: "yt-dlp -N 8" }),
        relativeTo(`${label}: service by media_id`, median(byMedia), "s", n8, { bound: "≤", times: 1.3, of: "yt-dlp -N 8" }),
        threeTimesFaster(`${label}: service by url`, median(byUrl)),
        threeTimesFaster(`${label}: service by media_id`, median(byMedia)),
        relativeTo(`${label}: yt-dlp -N 8 by hand`, n8.value, "s", slow, { bound: "≤", times: 1, of: "yt-dlp default" })
      )
    }
    printTable(
      `fragmented media at ${FIRST_BYTE_MS} ms to first byte, ${BYTES_PER_SECOND / 1024 / 1024} MB/s per connection (median of ${SAMPLES}; yt-dlp's default once)`,
      rows
    )
  }
  // The egress proxy alone (no confinement, no queue): yt-dlp -N 8 by hand through it against straight to the CDN.
  if (PARTS.has("egress")) {
    const proxy = await startEgressProxy(makeEgressPolicy(parseEgressAllowList(cdn.hostPort), async () => []))
    const direct: Array<number> = []
    const proxied: Array<number> = []
    try {
      for (let i = 0; i < SAMPLES; i++) {
        note(`egress proxy: sample ${i + 1}/${SAMPLES}, HLS by hand with -N 8 straight, then through the proxy`)
        direct.push(await byHand(`${cdn.origin}/hls/index.m3u8`, 8))
        proxied.push(await byHand(`${cdn.origin}/hls/index.m3u8`, 8, proxy.url))
      }
    } finally {
      await proxy.close()
    }
    note(`egress proxy: straight ${seconds(direct)} s; through the proxy ${seconds(proxied)} s`)
    printTable(`egress proxy with 8 fragments in flight (HLS case, median of ${SAMPLES})`, [
      relativeTo(
        "yt-dlp -N 8 through the egress proxy",
        median(proxied),
        "s",
        { label: "straight to the CDN", value: median(direct) },
        {
          bound: "≤",
          times: 1.1,
          of: "straight"
        }
      )
    ])
  }
  // The default of CONCURRENT_FRAGMENTS: yt-dlp by hand on the HLS case at several -N, once each.
  if (PARTS.has("sweep")) {
    const sweep: Array<Array<string | number>> = []
    for (const fragments of [2, 4, 8, 16]) {
      note(`sweep: yt-dlp -N ${fragments} by hand`)
      sweep.push([fragments, await byHand(`${cdn.origin}/hls/index.m3u8`, fragments)])
    }
    printSeries("HLS case by hand against -N (one run each)", ["-N", "seconds"], sweep)
  }
  const fixedRows: Array<Row> = []
  // Fixed cost: a 5 MB file by media_id, POST to completed, against curl of the same file.
  if (PARTS.has("small")) {
    const smallUrl = `${origin.origin}/small.mp4`
    const smallId = await mediaIdOf(smallUrl)
    const service: Array<number> = []
    const curl: Array<number> = []
    const ytDlpByHand: Array<number> = []
    for (let i = 0; i < SAMPLES + 2; i++) {
      note(`5 MB file: sample ${i + 1}/${SAMPLES + 2}`)
      service.push(await job({ media_id: smallId }))
      const started = performance.now()
      await run("curl", ["--silent", "--fail", "--output", join(work, "small.mp4"), smallUrl])
      curl.push((performance.now() - started) / 1000)
      ytDlpByHand.push(await byHand(smallUrl, null))
    }
    note(`5 MB file: service ${seconds(service)} s; curl ${seconds(curl)} s; yt-dlp by hand (by url) ${seconds(ytDlpByHand)} s`)
    fixedRows.push(
      {
        metric: "5 MB file by media_id: POST to completed",
        value: median(service),
        unit: "s",
        reference: { label: "curl", value: median(curl) },
        target: "≤ curl + 0.5 s",
        met: median(service) <= median(curl) + 0.5
      },
      {
        metric: "5 MB file: yt-dlp by hand, by url, straight (its start-up and extraction; the same for scale)",
        value: median(ytDlpByHand),
        unit: "s",
        reference: { label: "curl", value: median(curl) },
        target: "—",
        met: null
      }
    )
  }
  // Four fragmented jobs at once (two HLS, two DASH, by url): the extractor's peak RSS.
  if (PARTS.has("rss")) {
    const extractorPid = stack.pidOf("extractor")
    if (extractorPid === null) throw new Error("the extractor is not running")
    note("four fragmented jobs at once, sampling the extractor's RSS")
    // A project runs two jobs at once: two projects, two jobs each.
    const other = (await stack.provisionKey()).key
    const idle = ((await rssBytes(extractorPid)) ?? 0) / 1024 / 1024
    const rss = sampleRss(extractorPid, 50)
    await Promise.all([
      job({ url: `${cdn.origin}/hls/index.m3u8` }),
      job({ url: `${cdn.origin}/dash/manifest.mpd` }),
      job({ url: `${cdn.origin}/hls/index.m3u8?second` }, other),
      job({ url: `${cdn.origin}/dash/manifest.mpd?second` }, other)
    ])
    const peak = await rss.stop()
    fixedRows.push({
      metric: "extractor peak RSS, four fragmented jobs at once",
      value: peak,
      unit: "MB",
      reference: { label: "same extractor idle", value: idle },
      target: "recorded (the 120 MB bound is for one 300 MB download, bench/memory)",
      met: null
    })
  }
  if (fixedRows.length > 0) printTable("per-job fixed cost and memory", fixedRows)

  // A 20 s clip from the middle of each stream: the service (by media_id and by url) against yt-dlp by hand with
  // --download-sections as one runs it (ffmpeg reads the section; yt-dlp's default), and -N 8 of the whole stream for scale.
  if (PARTS.has("clips")) {
    const clipRows: Array<Row> = []
    for (const [label, url] of [
      ["HLS", `${cdn.origin}/hls/index.m3u8`],
      ["DASH", `${cdn.origin}/dash/manifest.mpd`]
    ] as const) {
      const mediaId = await mediaIdOf(url)
      const byMedia: Array<number> = []
      const byUrl: Array<number> = []
      const handSections: Array<number> = []
      const handWhole: Array<number> = []
      for (let i = 0; i < SAMPLES; i++) {
        note(`${label} clip ${CLIP.start}-${CLIP.end} s: sample ${i + 1}/${SAMPLES}`)
        byMedia.push(await job({ media_id: mediaId }, key, CLIP))
        byUrl.push(await job({ url }, key, CLIP))
        handSections.push(await byHand(url, null, undefined, CLIP))
        handWhole.push(await byHand(url, 8))
      }
      note(
        `${label} clip: by media_id ${seconds(byMedia)} s; by url ${seconds(byUrl)} s; --download-sections by hand ${seconds(handSections)} s; whole stream -N 8 by hand ${seconds(handWhole)} s`
      )
      const sections = { label: "yt-dlp --download-sections by hand", value: median(handSections) }
      const informative = (metric: string, value: number): Row => ({
        metric,
        value,
        unit: "s",
        reference: sections,
        target: "—",
        met: null
      })
      clipRows.push(
        informative(`${label}, 20 s clip: service by media_id`, median(byMedia)),
        informative(`${label}, 20 s clip: service by url`, median(byUrl)),
        informative(`${label}, 20 s clip: yt-dlp --download-sections by hand`, median(handSections)),
        informative(`${label}, whole 60 s stream: yt-dlp -N 8 by hand (for scale)`, median(handWhole))
      )
    }
    printTable(`a ${CLIP.end - CLIP.start} s clip of fragmented media (median of ${SAMPLES})`, clipRows)
  }
} finally {
  await bench.close()
  await cdn.close()
  await origin.close()
  await rm(work, { recursive: true, force: true })
  await rm(smallDir, { recursive: true, force: true })
}
