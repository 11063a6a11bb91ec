// Soak: a local stack under 300 req/s of mixed API calls plus 20 downloads always in flight, for 10 minutes; prints
// errors, latencies and each service's memory growth. Loopback only. Run: node bench/soak.ts [--minutes 10]
// [--rps 300] [--downloads 20]. Exit code 1 when any request failed unexpectedly or a download did not complete.
import { readFile } from "node:fs/promises"
import { parseArgs } from "node:util"
import { type MediaServer, startMediaServer } from "../test/support/MediaServer.ts"
import { startServiceStack, type ServiceStack } from "../test/support/ServiceStack.ts"

const { values } = parseArgs({
  options: {
    minutes: { type: "string", default: "10" },
    rps: { type: "string", default: "300" },
    downloads: { type: "string", default: "20" }
  }
})
const MINUTES = Number(values.minutes)
const RPS = Number(values.rps)
const DOWNLOADS = Number(values.downloads)
/** Requests in flight at most: beyond it the load generator skips a tick (counted) instead of queueing without bound. */
const MAX_IN_FLIGHT = 512
const PROJECTS = Math.max(1, Math.ceil(DOWNLOADS / 2))

const log = (line: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${line}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

interface Tally {
  sent: number
  skipped: number
  byOutcome: Map<string, number>
  unexpected: Map<string, number>
  latencies: Array<number>
}
const tally: Tally = { sent: 0, skipped: 0, byOutcome: new Map(), unexpected: new Map(), latencies: [] }
const bump = (map: Map<string, number>, key: string) => map.set(key, (map.get(key) ?? 0) + 1)

const rssMb = async (pid: number | null) => {
  if (pid === null) return null
  const status = await readFile(`/proc/${pid}/status`, "utf8").catch(() => "")
  const kb = /VmRSS:\s+(\d+) kB/.exec(status)?.[1]
  return kb === undefined ? null : Number(kb) / 1024
}

interface Client {
  readonly key: string
  readonly projectId: string
}

let media: MediaServer | null = null
let stack: ServiceStack | null = null
let running = true
let exitCode = 0

const call = async (base: string, method: string, path: string, key: string | null, body?: unknown) => {
  const headers: Record<string, string> = key === null ? {} : { "x-api-key": key }
  if (body !== undefined) headers["content-type"] = "application/json"
  const response = await fetch(`${base}${path}`, {
    method,
    headers,
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000)
  })
  const text = await response.text()
  return { status: response.status, text, json: text.startsWith("{") ? (JSON.parse(text) as any) : null }
}

try {
  log(`soak: ${MINUTES} min, ${RPS} req/s mixed, ${DOWNLOADS} downloads in flight, ${PROJECTS} projects`)
  media = await startMediaServer({ throttleBytesPerSecond: 1024 * 1024 })
  stack = await startServiceStack({
    extractors: 2,
    env: {
      EGRESS_ALLOW: media.hostPort,
      // Every other name resolves to a refused documentation address: nothing leaves the machine.
      EGRESS_RESOLVE_OVERRIDES: "*=192.0.2.1",
      WORKER_CONCURRENCY: String(Math.ceil(DOWNLOADS / 2)),
      API_RATE_LIMIT_PER_MINUTE: String(RPS * 60)
    }
  })
  const base = stack.baseUrl
  const clients: Array<Client> = []
  for (let i = 0; i < PROJECTS; i++) clients.push(await stack.provisionKey())
  const pick = <A>(items: ReadonlyArray<A>): A => items[Math.floor(Math.random() * items.length)] as A
  const finishedJobs: Array<{ client: Client; jobId: string }> = []
  const lastRead = new Map<string, number>()

  // 20 downloads always in flight: each loop queues one, polls it every 2 s, fetches the file, and starts over.
  let completed = 0
  let failedDownloads = 0
  const downloadLoop = async (client: Client, slot: number) => {
    while (running) {
      const format = slot % 2 === 0 ? "video_best" : "audio_m4a"
      const queued = await call(base, "POST", "/media/download", client.key, { url: media?.urls.slow, format }).catch(() => null)
      if (queued?.status !== 202) {
        bump(tally.unexpected, `download queue ${queued?.status ?? "network"}`)
        await sleep(2_000)
        continue
      }
      const jobId: string = queued.json.data.job_id
      let job: any = null
      while (running) {
        await sleep(2_000)
        const seen = await call(base, "GET", `/jobs/${jobId}`, client.key).catch(() => null)
        if (seen?.status !== 200) continue
        job = seen.json.data
        if (job.status === "completed" || job.status === "failed") break
      }
      if (job?.status === "completed") {
        const file = await fetch(job.result.download_url, { signal: AbortSignal.timeout(60_000) }).then(
          (r) => r.arrayBuffer(),
          () => null
        )
        if (file?.byteLength === job.result.size_bytes) {
          completed++
          finishedJobs.push({ client, jobId })
          if (finishedJobs.length > 500) finishedJobs.shift()
        } else failedDownloads++
      } else if (job?.status === "failed") {
        failedDownloads++
        bump(tally.unexpected, `download failed ${job.error?.code}`)
      }
    }
  }

  // The mixed calls: what each one is, and the statuses that are correct answers to it.
  const mix: ReadonlyArray<readonly [weight: number, name: string, run: () => Promise<{ status: number }>, ok: ReadonlyArray<number>]> = [
    [20, "health", () => call(base, "GET", "/health", null), [200]],
    [15, "platforms", () => call(base, "GET", "/platforms", pick(clients).key), [200]],
    [
      15,
      "resolve",
      () => call(base, "POST", "/media/resolve", pick(clients).key, { url: pick([media?.urls.mp4, media?.urls.audio, media?.urls.page]) }),
      [200]
    ],
    [
      5,
      "resolve refused",
      () => call(base, "POST", "/media/resolve", pick(clients).key, { url: "http://metadata.internal/latest" }),
      [422]
    ],
    [5, "invalid body", () => call(base, "POST", "/media/download", pick(clients).key, '{"format": 1}'), [400]],
    // Valid downloads come only from the download loops, which hold every project's slots.
    [
      5,
      "download of an unknown media id",
      () => call(base, "POST", "/media/download", pick(clients).key, { media_id: "med_aaaaaaaaaaaaaaaaaaaaaaaa", format: "video_best" }),
      [404]
    ],
    [
      25,
      "job read",
      () => {
        // Like polite clients: a job is read again by its key 2 s after the last read at the earliest.
        const now = Date.now()
        const known =
          Array.from({ length: 8 }, () => (finishedJobs.length > 0 ? pick(finishedJobs) : null)).find(
            (job) => job !== null && now - (lastRead.get(job.jobId) ?? 0) >= 2_100
          ) ?? null
        if (known === null) return call(base, "GET", "/jobs/job_bbbbbbbbbbbbbbbbbbbbbbbb", pick(clients).key)
        lastRead.set(known.jobId, now)
        return call(base, "GET", `/jobs/${known.jobId}`, known.client.key)
        // 429 polling_too_fast: the download loop polls the same job with the same key now and then.
      },
      [200, 404, 429]
    ],
    [5, "unknown job", () => call(base, "GET", "/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa", pick(clients).key), [404]],
    [5, "openapi", () => call(base, "GET", "/openapi.json", null), [200]]
  ]
  const totalWeight = mix.reduce((sum, [weight]) => sum + weight, 0)
  const choose = () => {
    let roll = Math.random() * totalWeight
    for (const entry of mix) if ((roll -= entry[0]) < 0) return entry
    return mix[0]!
  }

  let inFlight = 0
  const fire = () => {
    if (inFlight >= MAX_IN_FLIGHT) {
      tally.skipped++
      return
    }
    const [, name, run, ok] = choose()
    inFlight++
    tally.sent++
    const started = performance.now()
    run()
      .then(
        ({ status }) => {
          tally.latencies.push(performance.now() - started)
          bump(tally.byOutcome, `${name} ${status}`)
          if (!ok.includes(status)) bump(tally.unexpected, `${name} ${status}`)
        },
        (error: unknown) => bump(tally.unexpected, `${name} ${error instanceof Error ? error.name : "error"}`)
      )
      .finally(() => inFlight--)
  }

  const labels = stack.labels
  const memory = async () =>
    Object.fromEntries(await Promise.all(labels.map(async (l) => [l, await rssMb(stack?.pidOf(l) ?? null)] as const)))
  const downloads = Array.from({ length: DOWNLOADS }, (_, i) => downloadLoop(clients[i % clients.length] as Client, i))

  // Warm-up: the first minute's memory is the baseline, so start-up allocations do not read as growth.
  const startedAt = Date.now()
  const endAt = startedAt + MINUTES * 60_000
  let baseline: Record<string, number | null> | null = null
  let lastReport = startedAt
  // Open loop: the requests due by now are sent whatever the answers take (timers on a busy machine fire late).
  let fired = 0
  while (Date.now() < endAt) {
    const due = Math.floor((RPS * (Date.now() - startedAt)) / 1000)
    for (; fired < due; fired++) fire()
    await sleep(10)
    if (Date.now() - lastReport >= 60_000) {
      lastReport = Date.now()
      const rss = await memory()
      baseline ??= rss
      const sorted = [...tally.latencies].sort((a, b) => a - b)
      tally.latencies.length = 0
      const p = (q: number) => (sorted[Math.floor(q * (sorted.length - 1))] ?? 0).toFixed(1)
      log(
        `minute ${Math.round((lastReport - startedAt) / 60_000)}: sent ${tally.sent}, in flight ${inFlight}, skipped ${tally.skipped}, ` +
          `p50 ${p(0.5)} ms, p99 ${p(0.99)} ms, downloads ${completed} done / ${failedDownloads} failed, unexpected ${[...tally.unexpected.values()].reduce((a, b) => a + b, 0)}, ` +
          `rss ${labels.map((l) => `${l} ${rss[l]?.toFixed(0) ?? "?"} MB`).join(", ")}`
      )
    }
  }
  running = false
  await Promise.race([Promise.all(downloads), sleep(60_000)])
  while (inFlight > 0) await sleep(100)

  const final = await memory()
  log("outcomes:")
  for (const [outcome, count] of [...tally.byOutcome].sort()) log(`  ${outcome}: ${count}`)
  log(`errors (unexpected status or no answer): ${tally.unexpected.size === 0 ? "none" : ""}`)
  for (const [what, count] of tally.unexpected) log(`  ${what}: ${count}`)
  log(
    `requests: ${tally.sent} sent (${(tally.sent / (MINUTES * 60)).toFixed(0)}/s), ${tally.skipped} skipped at ${MAX_IN_FLIGHT} in flight`
  )
  log(`downloads: ${completed} completed and verified, ${failedDownloads} failed`)
  log("memory (RSS after the first minute -> at the end):")
  for (const label of labels) {
    const from = baseline?.[label] ?? null
    const to = final[label] ?? null
    log(
      `  ${label}: ${from?.toFixed(0) ?? "?"} MB -> ${to?.toFixed(0) ?? "?"} MB` +
        (from !== null && to !== null
          ? ` (${to >= from ? "+" : ""}${(to - from).toFixed(0)} MB, ${(((to - from) / from) * 100).toFixed(0)} %)`
          : "")
    )
  }
  if (tally.unexpected.size > 0 || completed === 0 || failedDownloads > 0) exitCode = 1
} catch (error) {
  log(`soak failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
  if (stack !== null) log(stack.logs())
  exitCode = 1
} finally {
  running = false
  await stack?.close()
  await media?.close()
  process.exit(exitCode)
}
