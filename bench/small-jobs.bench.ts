// Small jobs, where a job's cost is its start: a 5 MB file by media_id from POST to completed against curl of the same
// file; 40 small jobs by url from 4 projects that keep their 2 slots busy against the same 40 downloads by yt-dlp run by
// hand two at a time; the extractor's CPU per small job and its memory. The same stack with YT_DLP_WARM_RUNNER=off is
// measured in the same run, for what the warm runner changes. MDS_BENCH_SMALL_SAMPLES (5) and MDS_BENCH_SMALL_ROUNDS (2).
import { execFile } from "node:child_process"
import { copyFile, mkdir, mkdtemp, rm, stat } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { ensureMediaFixtures, ffmpeg } from "../test/support/MediaFixtures.ts"
import { startPacedCdn } from "../test/support/PacedCdn.ts"
import { cpuSeconds, treeCpuSeconds } from "./support/ProcessCpu.ts"
import { rssBytes, treeMemoryMb } from "./support/ProcessMemory.ts"
import { median, note, printTable, type Row, relativeTo } from "./support/Report.ts"
import { api, type BenchStack, startBenchStack, waitForJob } from "./support/Stack.ts"

const run = promisify(execFile)
const YT_DLP = join(import.meta.dirname, "..", ".tools", "venv", "bin", "yt-dlp")
const SAMPLES = Number(process.env["MDS_BENCH_SMALL_SAMPLES"] ?? 5)
const ROUNDS = Number(process.env["MDS_BENCH_SMALL_ROUNDS"] ?? 2)
const PROJECTS = 4
/** Each project keeps both its slots (API_MAX_CONCURRENT_JOBS, 2) busy: two lanes of jobs one after another. */
const LANES = 2
const JOBS_PER_LANE = 5
const SMALL_JOBS = PROJECTS * LANES * JOBS_PER_LANE
/** yt-dlp by hand at the service's parallelism: WORKER_CONCURRENCY, 2 runs at once. */
const BY_HAND_AT_ONCE = 2

// The 5 MB file: the 4 s test clip looped (stream copy), served at once, so the job's own cost is what differs from curl.
const fixtures = await ensureMediaFixtures()
const fileDir = await mkdtemp(join(tmpdir(), "mds-bench-small-jobs-"))
await ffmpeg(["-stream_loop", "49", "-i", fixtures.clipMp4, "-c", "copy", "-movflags", "+faststart", "five.mp4"], fileDir)
// The small jobs: the 100 KB test clip itself, a new URL each (a query the server ignores), so nothing is cached.
await copyFile(fixtures.clipMp4, join(fileDir, "clip.mp4"))
const fiveMb = ((await stat(join(fileDir, "five.mp4"))).size / 1024 / 1024).toFixed(1)
const origin = await startPacedCdn({ root: fileDir, firstByteMs: 0, bytesPerSecond: null })
const work = await mkdtemp(join(tmpdir(), "mds-bench-small-work-"))
const seconds = (values: ReadonlyArray<number>) => values.map((s) => s.toFixed(2)).join(", ")

/** yt-dlp as one would run it by hand, straight to the server (no proxy, no confinement), the service's format. */
let handRuns = 0
const byHand = async (url: string) => {
  const dir = join(work, `hand-${handRuns++}`)
  await run(YT_DLP, [
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
    "--",
    url
  ])
  await rm(dir, { recursive: true, force: true })
}

/** The 40 small downloads by hand, two at a time; the wall time in seconds. */
const allByHand = async (urls: ReadonlyArray<string>) => {
  const started = performance.now()
  const queue = [...urls]
  await Promise.all(
    Array.from({ length: BY_HAND_AT_ONCE }, async () => {
      for (let url = queue.shift(); url !== undefined; url = queue.shift()) await byHand(url)
    })
  )
  return (performance.now() - started) / 1000
}

interface StackFigures {
  readonly fiveMb: ReadonlyArray<number>
  readonly curl: ReadonlyArray<number>
  readonly smallJobs: ReadonlyArray<number>
  readonly byHand: ReadonlyArray<number>
  /** Extractor CPU (its process and everything under it) per small job, in ms; and the node process's own part. */
  readonly cpuPerJobMs: ReadonlyArray<number>
  readonly nodeCpuPerJobMs: ReadonlyArray<number>
  /** The same per 4.7 MB job by media_id. */
  readonly cpuPerFiveMbJobMs: number
  /** Extractor and its processes, idle and at the peak of the small jobs (RSS summed, PSS summed), MB. */
  readonly idle: { readonly node: number; readonly rss: number; readonly pss: number }
  readonly peak: { readonly rss: number; readonly pss: number }
}

const measureStack = async (warm: boolean, withHand: boolean): Promise<StackFigures> => {
  const label = warm ? "warm runner" : "YT_DLP_WARM_RUNNER=off"
  const bench: BenchStack = await startBenchStack({
    env: { EGRESS_ALLOW: `${origin.hostPort}`, YT_DLP_WARM_RUNNER: warm ? "on" : "off" }
  })
  try {
    const { stack } = bench
    const extractor = stack.pidOf("extractor")
    if (extractor === null) throw new Error("no extractor process")
    if (warm) {
      const deadline = Date.now() + 60_000
      while (!stack.logs().includes("warm yt-dlp runner up")) {
        if (Date.now() > deadline) throw new Error(`the warm runner did not come up\n${stack.logs()}`)
        await new Promise((r) => setTimeout(r, 100))
      }
    }
    const keys = await Promise.all(Array.from({ length: PROJECTS }, () => stack.provisionKey()))
    const key = keys[0]?.key ?? ""
    const job = async (as: string, source: { url: string } | { media_id: string }) => {
      const started = performance.now()
      let queued = await api(stack.baseUrl, "POST", "/media/download", as, { ...source, format: "video_best" })
      // A slot is freed just after its job shows completed (the aggregator releases it on JobCompleted): a client
      // keeping its slots busy asks again at once.
      while (queued.status === 429 && queued.json?.error?.code === "concurrency_limit_exceeded") {
        await new Promise((r) => setTimeout(r, 10))
        queued = await api(stack.baseUrl, "POST", "/media/download", as, { ...source, format: "video_best" })
      }
      if (queued.status !== 202) throw new Error(`queueing failed: ${queued.text}`)
      const done = await waitForJob(stack.baseUrl, as, queued.json.data.job_id, { intervalMs: 25, timeoutMs: 300_000 })
      if (done.json.data.status !== "completed") throw new Error(`the job did not complete: ${done.text}\n${stack.logs()}`)
      return (performance.now() - started) / 1000
    }

    const fiveUrl = `${origin.origin}/five.mp4`
    const resolved = await api(stack.baseUrl, "POST", "/media/resolve", key, { url: fiveUrl })
    if (resolved.status !== 200) throw new Error(`resolve failed: ${resolved.text}`)
    const mediaId: string = resolved.json.data.id
    // One job first: the first run of a fresh stack pays for what later ones find ready (modules, sockets).
    await job(key, { media_id: mediaId })
    await new Promise((r) => setTimeout(r, 1000))
    const idleTree = await treeMemoryMb(extractor)
    const idleNode = await rssBytes(extractor)
    const fiveMbJobs: Array<number> = []
    const curl: Array<number> = []
    let fiveMbCpu = 0
    for (let i = 0; i < SAMPLES; i++) {
      note(`${label}: ${fiveMb} MB by media_id, sample ${i + 1}/${SAMPLES}; curl`)
      const cpuBefore = await treeCpuSeconds(extractor)
      fiveMbJobs.push(await job(key, { media_id: mediaId }))
      fiveMbCpu += (await treeCpuSeconds(extractor)) - cpuBefore
      const started = performance.now()
      await run("curl", ["--silent", "--fail", "--output", join(work, "five.mp4"), fiveUrl])
      curl.push((performance.now() - started) / 1000)
    }
    note(`${label}: ${fiveMb} MB by media_id ${seconds(fiveMbJobs)} s; curl ${seconds(curl)} s`)

    const smallJobs: Array<number> = []
    const hand: Array<number> = []
    const cpuPerJobMs: Array<number> = []
    const nodeCpuPerJobMs: Array<number> = []
    let peak = { rss: 0, pss: 0 }
    for (let round = 0; round < ROUNDS; round++) {
      const urls = Array.from({ length: SMALL_JOBS }, (_, i) => `${origin.origin}/clip.mp4?round=${round}&job=${i}&warm=${warm}`)
      note(`${label}: ${SMALL_JOBS} small jobs by url from ${PROJECTS} projects, round ${round + 1}/${ROUNDS}`)
      let sampling = true
      const sampler = (async () => {
        while (sampling) {
          const now = await treeMemoryMb(extractor)
          peak = { rss: Math.max(peak.rss, now.rss), pss: Math.max(peak.pss, now.pss) }
          await new Promise((r) => setTimeout(r, 50))
        }
      })()
      const cpuBefore = await treeCpuSeconds(extractor)
      const nodeBefore = cpuSeconds(extractor)
      const started = performance.now()
      await Promise.all(
        keys.flatMap((project, p) =>
          Array.from({ length: LANES }, async (_, lane) => {
            for (let n = 0; n < JOBS_PER_LANE; n++) await job(project.key, { url: urls[(p * LANES + lane) * JOBS_PER_LANE + n] ?? "" })
          })
        )
      )
      smallJobs.push((performance.now() - started) / 1000)
      cpuPerJobMs.push((((await treeCpuSeconds(extractor)) - cpuBefore) * 1000) / SMALL_JOBS)
      nodeCpuPerJobMs.push(((cpuSeconds(extractor) - nodeBefore) * 1000) / SMALL_JOBS)
      sampling = false
      await sampler
      if (withHand) {
        note(`by hand: the same ${SMALL_JOBS} downloads, ${BY_HAND_AT_ONCE} at a time, round ${round + 1}/${ROUNDS}`)
        hand.push(await allByHand(urls))
      }
    }
    note(
      `${label}: ${SMALL_JOBS} small jobs ${seconds(smallJobs)} s${withHand ? `; by hand ${seconds(hand)} s` : ""}; ` +
        `CPU per job ${cpuPerJobMs.map((ms) => ms.toFixed(0)).join(", ")} ms (node itself ` +
        `${nodeCpuPerJobMs.map((ms) => ms.toFixed(0)).join(", ")} ms), per ${fiveMb} MB job ${((fiveMbCpu * 1000) / SAMPLES).toFixed(0)} ms; idle ${idleTree.rss.toFixed(0)} MB RSS ` +
        `(${idleTree.pss.toFixed(0)} MB PSS), peak ${peak.rss.toFixed(0)} MB RSS (${peak.pss.toFixed(0)} MB PSS)`
    )
    return {
      fiveMb: fiveMbJobs,
      curl,
      smallJobs,
      byHand: hand,
      cpuPerJobMs,
      nodeCpuPerJobMs,
      cpuPerFiveMbJobMs: (fiveMbCpu * 1000) / SAMPLES,
      idle: { node: (idleNode ?? 0) / 1024 / 1024, rss: idleTree.rss, pss: idleTree.pss },
      peak
    }
  } finally {
    await bench.close()
  }
}

try {
  await mkdir(work, { recursive: true })
  const warm = await measureStack(true, true)
  const cold = await measureStack(false, false)
  const curl = median([...warm.curl, ...cold.curl])
  const hand = { label: `yt-dlp by hand, ${BY_HAND_AT_ONCE} at a time`, value: median(warm.byHand) }
  const plusAtMost = (metric: string, value: number, margin: number): Row => ({
    metric,
    value,
    unit: "s",
    reference: { label: "curl", value: curl },
    target: `≤ curl + ${margin} s`,
    met: value <= curl + margin
  })
  const rows: Array<Row> = [
    plusAtMost(`${fiveMb} MB file by media_id, POST to completed`, median(warm.fiveMb), 0.15),
    { ...plusAtMost(`the same, YT_DLP_WARM_RUNNER=off`, median(cold.fiveMb), 0.5), target: "(before: ≤ curl + 0.5 s)" },
    relativeTo(`${SMALL_JOBS} small jobs by url, ${PROJECTS} projects keeping 2 slots busy`, median(warm.smallJobs), "s", hand, {
      bound: "≤",
      times: 0.67,
      of: "by hand"
    }),
    {
      ...relativeTo("the same, YT_DLP_WARM_RUNNER=off", median(cold.smallJobs), "s", hand, { bound: "≤", times: 0.67, of: "by hand" }),
      met: null
    },
    {
      metric: `extractor CPU per ${fiveMb} MB job by media_id (its processes included)`,
      value: warm.cpuPerFiveMbJobMs,
      unit: "ms",
      reference: { label: "YT_DLP_WARM_RUNNER=off", value: cold.cpuPerFiveMbJobMs },
      target: "recorded",
      met: null
    },
    {
      metric: `extractor CPU per small job by url (its processes included; the node process itself: ${median(warm.nodeCpuPerJobMs).toFixed(0)} ms, off ${median(cold.nodeCpuPerJobMs).toFixed(0)} ms)`,
      value: median(warm.cpuPerJobMs),
      unit: "ms",
      reference: { label: "YT_DLP_WARM_RUNNER=off", value: median(cold.cpuPerJobMs) },
      target: "recorded",
      met: null
    },
    {
      metric: "extractor idle, with its runner (RSS of its processes)",
      value: warm.idle.rss,
      unit: "MB",
      reference: { label: "YT_DLP_WARM_RUNNER=off", value: cold.idle.rss },
      target: "≤ +30 MB",
      met: warm.idle.rss <= cold.idle.rss + 30
    },
    {
      metric: "extractor idle, with its runner (PSS of its processes)",
      value: warm.idle.pss,
      unit: "MB",
      reference: { label: "YT_DLP_WARM_RUNNER=off", value: cold.idle.pss },
      target: "≤ +30 MB",
      met: warm.idle.pss <= cold.idle.pss + 30
    },
    {
      metric: "extractor and its processes at the peak of the small jobs (PSS)",
      value: warm.peak.pss,
      unit: "MB",
      reference: { label: "YT_DLP_WARM_RUNNER=off", value: cold.peak.pss },
      target: "recorded",
      met: null
    },
    {
      metric: "the same, RSS summed (pages a fork shares counted in every process)",
      value: warm.peak.rss,
      unit: "MB",
      reference: { label: "YT_DLP_WARM_RUNNER=off", value: cold.peak.rss },
      target: "recorded",
      met: null
    }
  ]
  printTable(
    `small jobs (median of ${SAMPLES} for the ${fiveMb} MB file, of ${ROUNDS} rounds for the ${SMALL_JOBS} small jobs; the node process alone idle: ${warm.idle.node.toFixed(0)} MB with the runner, ${cold.idle.node.toFixed(0)} MB without)`,
    rows
  )
} finally {
  await origin.close()
  await rm(fileDir, { recursive: true, force: true })
  await rm(work, { recursive: true, force: true })
}
