// Download: a ~300 MB local file from POST to `completed` (by url, and by media_id from the stored resolve), against raw
// yt-dlp and curl writing the same file to disk.
import { execFile } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { jobSubject, JOBS_STREAM } from "@mds/shared/nats/Subjects"
import { ensureBigMp4, serveFile } from "./support/BigMedia.ts"
import { sampleRss } from "./support/ProcessMemory.ts"
import { atMost, median, note, printTable, relativeTo } from "./support/Report.ts"
import { api, startBenchStack, waitForJob } from "./support/Stack.ts"

const run = promisify(execFile)
const SAMPLES = 3

const timed = async <A>(f: () => Promise<A>): Promise<[number, A]> => {
  const started = performance.now()
  const value = await f()
  return [(performance.now() - started) / 1000, value]
}

note("preparing a ~300 MB mp4")
const big = await ensureBigMp4()
const files = await serveFile(big.path, big.sizeBytes)
const scratch = await mkdtemp(join(tmpdir(), "mds-bench-download-"))
const bench = await startBenchStack({ env: { EGRESS_ALLOW: files.hostPort } })
try {
  const { stack } = bench
  const { key, projectId } = await stack.provisionKey()
  const ytDlp = stack.env["YT_DLP_PATH"] ?? "yt-dlp"
  const extractorPid = stack.pidOf("extractor")
  if (extractorPid === null) throw new Error("no extractor process")
  const nc = await connect({ servers: stack.nats.url })
  const jsm = await jetstreamManager(nc)
  void jetstream

  /** JobProgressed events recorded for a job: the throttle's output. */
  const progressEvents = async (jobId: string) => {
    let count = 0
    let seq = 0
    while (true) {
      const msg = await jsm.direct.getMessage(JOBS_STREAM.name, { seq: seq + 1, next_by_subj: jobSubject(projectId, jobId) })
      if (msg === null) return count
      if (msg.string().includes('"JobProgressed"')) count++
      seq = msg.seq
    }
  }

  // One resolve; every download by media_id then runs from the info it stored.
  const resolved = await api(stack.baseUrl, "POST", "/media/resolve", key, { url: files.url })
  if (resolved.status !== 200) throw new Error(`resolve failed: ${resolved.text}`)
  const mediaId: string = resolved.json.data.id

  const viaService = async (source: { url: string } | { media_id: string }) => {
    const rss = sampleRss(extractorPid, 50)
    const [seconds, done] = await timed(async () => {
      const queued = await api(stack.baseUrl, "POST", "/media/download", key, { ...source, format: "video_best" })
      if (queued.status !== 202) throw new Error(`queueing failed: ${queued.text}`)
      return waitForJob(stack.baseUrl, key, queued.json.data.job_id, { intervalMs: 50, timeoutMs: 300_000 })
    })
    const peak = await rss.stop()
    if (done.json.data.status !== "completed") throw new Error(`the job did not complete: ${done.text}\n${stack.logs()}`)
    if (done.json.data.result.size_bytes !== big.sizeBytes)
      throw new Error(`stored ${done.json.data.result.size_bytes} bytes, not ${big.sizeBytes}`)
    return { seconds, peak, progress: await progressEvents(done.json.data.id) }
  }
  const viaYtDlp = async (i: number) => {
    const dir = join(scratch, `ytdlp-${i}`)
    const [seconds] = await timed(() => run(ytDlp, ["--ignore-config", "--no-playlist", "-q", "-P", dir, "-o", "raw.%(ext)s", files.url]))
    await rm(dir, { recursive: true, force: true })
    return seconds
  }
  const viaCurl = async (i: number) => {
    const file = join(scratch, `curl-${i}.mp4`)
    const [seconds] = await timed(() => run("curl", ["-sS", "-f", "-o", file, files.url]))
    await rm(file, { force: true })
    return seconds
  }

  const service: Array<number> = []
  const byMedia: Array<number> = []
  const ytdlp: Array<number> = []
  const curl: Array<number> = []
  const peaks: Array<number> = []
  const progress: Array<number> = []
  for (let i = 0; i < SAMPLES; i++) {
    note(`sample ${i + 1}/${SAMPLES}: service by url, service by media_id, yt-dlp, curl`)
    const s = await viaService({ url: files.url })
    service.push(s.seconds)
    peaks.push(s.peak)
    progress.push(s.progress)
    const m = await viaService({ media_id: mediaId })
    byMedia.push(m.seconds)
    peaks.push(m.peak)
    ytdlp.push(await viaYtDlp(i))
    curl.push(await viaCurl(i))
  }
  await nc.drain()

  const mb = big.sizeBytes / 1e6
  note(
    `file: ${mb.toFixed(0)} MB; service by url ${service.map((s) => s.toFixed(2)).join(", ")} s; by media_id ${byMedia.map((s) => s.toFixed(2)).join(", ")} s; yt-dlp ${ytdlp.map((s) => s.toFixed(2)).join(", ")} s; curl ${curl.map((s) => s.toFixed(2)).join(", ")} s`
  )
  const rawYtDlp = { label: "raw yt-dlp", value: median(ytdlp) }
  const curlToDisk = { label: "curl to disk", value: median(curl) }
  const byUrl = { label: "the same by url", value: median(service) }
  printTable(`download: ${mb.toFixed(0)} MB local mp4, POST to completed (median of ${SAMPLES}, interleaved)`, [
    relativeTo("POST to completed", median(service), "s", rawYtDlp, { bound: "≤", times: 1.3, of: "yt-dlp" }),
    relativeTo("POST to completed", median(service), "s", curlToDisk, { bound: "≤", times: 2, of: "curl" }),
    relativeTo("POST by media_id to completed", median(byMedia), "s", curlToDisk, { bound: "≤", times: 2, of: "curl" }),
    relativeTo("POST by media_id to completed", median(byMedia), "s", byUrl, { bound: "<", times: 1, of: "by url" }),
    {
      metric: "JobProgressed events per job (throttled to ≤ 1/s, whole percents)",
      value: median(progress),
      unit: "events",
      reference: null,
      target: `≤ ${Math.ceil(median(service)) + 1} (one a second)`,
      met: median(progress) <= Math.ceil(median(service)) + 1
    },
    atMost("extractor peak RSS while downloading", Math.max(...peaks), "MB", 120)
  ])
} finally {
  await bench.close()
  await files.close()
  await rm(scratch, { recursive: true, force: true })
}
