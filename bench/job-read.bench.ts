// Job reads: GET /v1/jobs/:id with a real key and read model against a bare fastify route answering the same JSON.
import { freePort } from "../test/support/NatsServer.ts"
import { startHelper } from "./support/ChildProcess.ts"
import { runLoad } from "./support/HttpLoad.ts"
import { measureCpu } from "./support/ProcessCpu.ts"
import { sampleRss } from "./support/ProcessMemory.ts"
import { median, note, printSeries, printTable } from "./support/Report.ts"
import { api, startBenchStack, waitForJob } from "./support/Stack.ts"

const ROUNDS = 3
const ROUND_SECONDS = 5
const CONNECTIONS = 16
const FIXED_RATE = 2_000
const FIXED_RATE_SECONDS = 10
const SCALING = [1, 4, 16, 64]
const CPU_REQUESTS = 30_000

const bench = await startBenchStack()
try {
  const { stack, media } = bench
  const { key } = await stack.provisionKey()
  const queued = await api(stack.baseUrl, "POST", "/media/download", key, { url: media.urls.mp4, format: "video_best" })
  if (queued.status !== 202) throw new Error(`queueing failed: ${queued.text}\n${stack.logs()}`)
  const jobId: string = queued.json.data.job_id
  const done = await waitForJob(stack.baseUrl, key, jobId)
  if (done.json.data.status !== "completed") throw new Error(`the job did not complete: ${done.text}\n${stack.logs()}`)
  note(`reading a completed job (${done.text.length} bytes of JSON)`)

  const barePort = await freePort()
  const bare = await startHelper(["bench/support/BareFastify.ts"], { BARE_BODY: done.text, BARE_PORT: String(barePort) })
  const gatewayPid = stack.pidOf("gateway")
  if (gatewayPid === null) throw new Error("no gateway process")
  const rss = sampleRss(gatewayPid)
  try {
    const gatewayUrl = `${stack.baseUrl}/jobs/${jobId}`
    const bareUrl = `http://127.0.0.1:${barePort}/v1/jobs/${jobId}`
    const headers = { "x-api-key": key }
    const expectOk = (label: string, result: { statusCounts: Readonly<Record<string, number>>; errors: number }) => {
      const bad = Object.entries(result.statusCounts).filter(([code]) => code !== "200")
      if (bad.length > 0 || result.errors > 0)
        throw new Error(`${label}: unexpected answers ${JSON.stringify(result.statusCounts)}, ${result.errors} errors`)
    }

    note("warming up")
    await runLoad({ url: gatewayUrl, headers, connections: CONNECTIONS, durationSeconds: 2 })
    await runLoad({ url: bareUrl, headers, connections: CONNECTIONS, durationSeconds: 2 })

    const gatewayRps: Array<number> = []
    const bareRps: Array<number> = []
    for (let round = 1; round <= ROUNDS; round++) {
      note(`throughput round ${round}/${ROUNDS} (${CONNECTIONS} connections, ${ROUND_SECONDS} s each)`)
      const b = await runLoad({ url: bareUrl, headers, connections: CONNECTIONS, durationSeconds: ROUND_SECONDS })
      expectOk("bare", b)
      bareRps.push(b.requestsPerSecond)
      const g = await runLoad({ url: gatewayUrl, headers, connections: CONNECTIONS, durationSeconds: ROUND_SECONDS })
      expectOk("gateway", g)
      gatewayRps.push(g.requestsPerSecond)
    }

    // CPU per request (from /proc): what each answer costs the server, which other load on the machine barely moves.
    note(`server CPU per request (${CPU_REQUESTS} requests each)`)
    const gatewayCpu = await measureCpu(gatewayPid, () =>
      runLoad({ url: gatewayUrl, headers, connections: CONNECTIONS, amount: CPU_REQUESTS })
    )
    expectOk("gateway (CPU)", gatewayCpu.result)
    const bareCpu = await measureCpu(bare.child.pid ?? 0, () =>
      runLoad({ url: bareUrl, headers, connections: CONNECTIONS, amount: CPU_REQUESTS })
    )
    const microseconds = (seconds: number) => Math.round((seconds * 1e6) / CPU_REQUESTS)

    note(`fixed rate: ${FIXED_RATE} req/s for ${FIXED_RATE_SECONDS} s`)
    const fixed = await runLoad({ url: gatewayUrl, headers, connections: 32, overallRate: FIXED_RATE, durationSeconds: FIXED_RATE_SECONDS })
    expectOk("gateway at fixed rate", fixed)
    const bareFixed = await runLoad({
      url: bareUrl,
      headers,
      connections: 32,
      overallRate: FIXED_RATE,
      durationSeconds: FIXED_RATE_SECONDS
    })

    const series: Array<Array<string | number>> = []
    for (const connections of SCALING) {
      note(`scaling: ${connections} connections`)
      const g = await runLoad({ url: gatewayUrl, headers, connections, durationSeconds: 3 })
      const b = await runLoad({ url: bareUrl, headers, connections, durationSeconds: 3 })
      series.push([connections, g.requestsPerSecond, g.p50Ms, g.p99Ms, b.requestsPerSecond, g.requestsPerSecond / b.requestsPerSecond])
    }
    const peakRss = await rss.stop()

    const ratio = median(gatewayRps) / median(bareRps)
    printTable(`job-read: GET /v1/jobs/{id} (median of ${ROUNDS} × ${ROUND_SECONDS} s, ${CONNECTIONS} connections)`, [
      {
        metric: "throughput",
        value: median(gatewayRps),
        unit: "req/s",
        reference: { label: "bare fastify", value: median(bareRps) },
        target: "≥ 0.6× bare",
        met: ratio >= 0.6
      },
      {
        metric: `p50 at ${FIXED_RATE} req/s`,
        value: fixed.p50Ms,
        unit: "ms",
        reference: { label: "bare fastify", value: bareFixed.p50Ms },
        target: "",
        met: null
      },
      {
        metric: `p99 at ${FIXED_RATE} req/s`,
        value: fixed.p99Ms,
        unit: "ms",
        reference: { label: "bare fastify", value: bareFixed.p99Ms },
        target: "≤ 10 ms",
        met: fixed.p99Ms <= 10
      },
      {
        metric: "server CPU per request",
        value: microseconds(gatewayCpu.cpuSeconds),
        unit: "µs",
        reference: { label: "bare fastify", value: microseconds(bareCpu.cpuSeconds) },
        target: "",
        met: null
      },
      { metric: "gateway peak RSS under this load", value: peakRss, unit: "MB", reference: null, target: "≤ 150 MB", met: peakRss <= 150 }
    ])
    printSeries(
      "job-read: throughput against concurrency (3 s each)",
      ["connections", "gateway req/s", "p50 ms", "p99 ms", "bare req/s", "ratio"],
      series
    )
  } finally {
    await rss.stop()
    await bare.stop()
  }
} finally {
  await bench.close()
}
