// Admission: POST /v1/media/download by media_id across many projects (two jobs each), against raw JetStream appends.
import { jetstream } from "@nats-io/jetstream"
import { connect } from "@nats-io/transport-node"
import { runLoad } from "./support/HttpLoad.ts"
import { cpuSeconds } from "./support/ProcessCpu.ts"
import { sampleRss } from "./support/ProcessMemory.ts"
import { type ProjectKey, provisionProjects } from "./support/Provision.ts"
import { median, note, printSeries, printTable } from "./support/Report.ts"
import { api, startBenchStack } from "./support/Stack.ts"

const ROUNDS = 3
const PROJECTS_PER_ROUND = 1_000
const CONNECTIONS = 32
const SCALING = [8, 128]
const WARM_UP_PROJECTS = 200

const bench = await startBenchStack()
try {
  const { stack, media } = bench
  const { key } = await stack.provisionKey()
  const resolved = await api(stack.baseUrl, "POST", "/media/resolve", key, { url: media.urls.mp4 })
  if (resolved.status !== 200) throw new Error(`resolve failed: ${resolved.text}\n${stack.logs()}`)
  const mediaId: string = resolved.json.data.id
  // Only admission is measured: no worker takes the queued downloads meanwhile.
  await stack.stopService("extractor")

  // The warm-up's projects too: without them the last scaling round got 800 projects (1,600 jobs), not 1,000.
  const projectCount = WARM_UP_PROJECTS + PROJECTS_PER_ROUND * (ROUNDS + SCALING.length)
  note(`provisioning ${projectCount} projects with a key each`)
  const projects = [...(await provisionProjects(stack.env, projectCount))]
  const take = (n: number) => projects.splice(0, n)
  const body = JSON.stringify({ media_id: mediaId, format: "video_best" })

  /** Two requests per project, in order of projects, so both of a project's requests are usually in flight together. */
  const admit = async (batch: ReadonlyArray<ProjectKey>, connections: number, requestsPerProject = 2) => {
    let next = 0
    return runLoad({
      url: `${stack.baseUrl}/media/download`,
      method: "POST",
      connections,
      amount: batch.length * requestsPerProject,
      headers: { "content-type": "application/json" },
      body,
      nextRequest: () => {
        const project = batch[Math.floor(next++ / requestsPerProject) % batch.length]!
        return { headers: { "x-api-key": project.key } }
      }
    })
  }

  note("warming up")
  await admit(take(WARM_UP_PROJECTS), CONNECTIONS)

  const gatewayPid = stack.pidOf("gateway")
  const rss = gatewayPid === null ? null : sampleRss(gatewayPid)
  const natsPid = stack.nats.pid()
  const aggregatorPid = stack.pidOf("aggregator")
  if (gatewayPid === null || natsPid === null || aggregatorPid === null) throw new Error("no gateway, aggregator or nats-server process")
  const cpuBefore = { gateway: cpuSeconds(gatewayPid), nats: cpuSeconds(natsPid), aggregator: cpuSeconds(aggregatorPid) }
  const accepted: Array<number> = []
  const p99: Array<number> = []
  const p50: Array<number> = []
  const refused: Array<number> = []
  const rounds: Array<ReadonlyArray<ProjectKey>> = []
  for (let round = 1; round <= ROUNDS; round++) {
    const batch = take(PROJECTS_PER_ROUND)
    rounds.push(batch)
    note(`round ${round}/${ROUNDS}: ${batch.length * 2} jobs over ${batch.length} projects, ${CONNECTIONS} connections`)
    const result = await admit(batch, CONNECTIONS)
    const ok = result.statusCounts["202"] ?? 0
    if (ok !== batch.length * 2) throw new Error(`expected every job accepted, got ${JSON.stringify(result.statusCounts)}\n${stack.logs()}`)
    accepted.push(result.requestsPerSecond)
    p50.push(result.p50Ms)
    p99.push(result.p99Ms)
  }

  // CPU per accepted job (from /proc): what admission costs each process, which other load barely moves.
  const mainJobs = ROUNDS * PROJECTS_PER_ROUND * 2
  const perJob = (pid: number, before: number, jobs: number) => Math.round(((cpuSeconds(pid) - before) * 1e6) / jobs)
  const cpuPerJob = {
    gateway: perJob(gatewayPid, cpuBefore.gateway, mainJobs),
    nats: perJob(natsPid, cpuBefore.nats, mainJobs),
    // The aggregator projects the events meanwhile (it may still be catching up when the rounds end).
    aggregator: perJob(aggregatorPid, cpuBefore.aggregator, mainJobs)
  }

  note("invariant: a third job in every project of the last round must be refused")
  const third = await admit(rounds.at(-1)!, CONNECTIONS, 1)
  refused.push(third.statusCounts["429"] ?? 0)

  const series: Array<Array<string | number>> = []
  for (const connections of SCALING) {
    const result = await admit(take(PROJECTS_PER_ROUND), connections)
    const answers = Object.entries(result.statusCounts)
      .map(([code, n]) => `${n}× ${code}`)
      .join(", ")
    series.push([
      connections,
      result.requestsPerSecond,
      result.p50Ms,
      result.p99Ms,
      `${answers}${result.errors > 0 ? `, ${result.errors} errors` : ""}`
    ])
  }
  series.splice(1, 0, [CONNECTIONS, median(accepted), median(p50), median(p99), "(main rounds)"])
  const peakRss = rss === null ? Number.NaN : await rss.stop()

  // Reference: the same three appends per job (slot claim, JobQueued, DownloadMedia) straight from one client.
  note("reference: raw JetStream appends")
  const nc = await connect({ servers: stack.nats.url })
  const js = jetstream(nc)
  const rawJobs = 2_000
  const started = performance.now()
  const rawNatsBefore = cpuSeconds(natsPid)
  let issued = 0
  await Promise.all(
    Array.from({ length: CONNECTIONS }, async () => {
      while (issued < rawJobs) {
        const n = issued++
        const payload = new TextEncoder().encode(JSON.stringify({ n, media_id: mediaId, pad: "x".repeat(200) }))
        await js.publish(`mds.admission.bench_raw_${n}`, payload, { msgID: `raw-claim-${n}`, expect: { lastSubjectSequence: 0 } })
        await js.publish(`mds.job.bench_raw.job_${n}`, payload, { msgID: `raw-queued-${n}`, expect: { lastSubjectSequence: 0 } })
        await js.publish("mds.work.bench-raw", payload, { msgID: `raw-work-${n}` })
      }
    })
  )
  const rawRate = rawJobs / ((performance.now() - started) / 1000)
  const rawNatsCpuPerJob = perJob(natsPid, rawNatsBefore, rawJobs)
  await nc.drain()

  const acceptedRate = median(accepted)
  printTable(
    `admission: POST /v1/media/download by media_id (median of ${ROUNDS} rounds × ${PROJECTS_PER_ROUND} projects × 2 jobs, ${CONNECTIONS} connections)`,
    [
      {
        metric: "accepted jobs",
        value: acceptedRate,
        unit: "jobs/s",
        reference: { label: "raw JetStream, 3 appends per job", value: rawRate },
        target: "≥ 1500 jobs/s",
        met: acceptedRate >= 1500
      },
      { metric: "p50 latency", value: median(p50), unit: "ms", reference: null, target: "", met: null },
      { metric: "p99 latency", value: median(p99), unit: "ms", reference: null, target: "≤ 25 ms", met: median(p99) <= 25 },
      {
        metric: "third job per project refused (429)",
        value: refused[0] ?? 0,
        unit: `of ${PROJECTS_PER_ROUND}`,
        reference: null,
        target: `all ${PROJECTS_PER_ROUND} (2-slot invariant)`,
        met: refused[0] === PROJECTS_PER_ROUND
      },
      { metric: "gateway CPU per accepted job", value: cpuPerJob.gateway, unit: "µs", reference: null, target: "", met: null },
      {
        metric: "nats-server CPU per accepted job",
        value: cpuPerJob.nats,
        unit: "µs",
        reference: { label: "raw JetStream, 3 appends per job", value: rawNatsCpuPerJob },
        target: "",
        met: null
      },
      {
        metric: "aggregator CPU per accepted job (during the rounds)",
        value: cpuPerJob.aggregator,
        unit: "µs",
        reference: null,
        target: "",
        met: null
      },
      { metric: "gateway peak RSS", value: peakRss, unit: "MB", reference: null, target: "", met: null }
    ]
  )
  printSeries("admission: accepted jobs/s against concurrency", ["connections", "jobs/s", "p50 ms", "p99 ms", "answers"], series)
} finally {
  await bench.close()
}
