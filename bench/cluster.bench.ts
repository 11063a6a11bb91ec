// High availability: the same stack on one nats-server and on a 3-node cluster (every stream and bucket at 3 replicas),
// in one run: job reads, admission, and on the cluster the time to recover from the death of the node that leads the
// most streams (killed -9 → first accepted download, and → every gateway follower delivering again).
import { connect } from "@nats-io/transport-node"
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { type MediaServer, startMediaServer } from "../test/support/MediaServer.ts"
import { clusterAsNatsServer, type NatsCluster, startNatsCluster } from "../test/support/NatsCluster.ts"
import { startServiceStack, type ServiceStack } from "../test/support/ServiceStack.ts"
import { runLoad } from "./support/HttpLoad.ts"
import { type ProjectKey, provisionProjects } from "./support/Provision.ts"
import { atMost, median, note, printTable, type Row } from "./support/Report.ts"
import { api, waitForJob } from "./support/Stack.ts"

const READ_ROUNDS = 3
const READ_SECONDS = 5
const CONNECTIONS = 16
const ADMISSION_PROJECTS = 300
const RECOVERY_PROJECTS = 400
const FRESHNESS_SAMPLES = 30

const limits = { API_RATE_LIMIT_PER_MINUTE: "1000000000", API_MIN_POLL_INTERVAL_SECONDS: "0" }

interface Figures {
  readonly readsPerSecond: number
  readonly readP50Ms: number
  readonly admittedPerSecond: number
  readonly admissionP50Ms: number
  /** GETs right after a 202 that answered the job (read-your-writes), out of FRESHNESS_SAMPLES. */
  readonly readYourWrites: number
  /** JobStarted appended → GET answers `processing`, median over FRESHNESS_SAMPLES jobs. */
  readonly freshnessMs: number
  readonly recovery?: { readonly firstAdmissionMs: number; readonly followersMs: number; readonly refusedMeanwhile: number }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const measure = async (stack: ServiceStack, media: MediaServer, cluster: NatsCluster | null): Promise<Figures> => {
  const { key } = await stack.provisionKey()
  const queued = await api(stack.baseUrl, "POST", "/media/download", key, { url: media.urls.mp4, format: "video_best" })
  if (queued.status !== 202) throw new Error(`queueing failed: ${queued.text}\n${stack.logs()}`)
  const jobId: string = queued.json.data.job_id
  const done = await waitForJob(stack.baseUrl, key, jobId)
  if (done.json.data.status !== "completed") throw new Error(`the job did not complete: ${done.text}`)
  const resolved = await api(stack.baseUrl, "POST", "/media/resolve", key, { url: media.urls.mp4 })
  const body = JSON.stringify({ media_id: resolved.json.data.id, format: "video_best" })

  note("job reads")
  const url = `${stack.baseUrl}/jobs/${jobId}`
  await runLoad({ url, headers: { "x-api-key": key }, connections: CONNECTIONS, durationSeconds: 2 })
  const reads = []
  for (let round = 0; round < READ_ROUNDS; round++) {
    reads.push(await runLoad({ url, headers: { "x-api-key": key }, connections: CONNECTIONS, durationSeconds: READ_SECONDS }))
  }

  note("admission")
  await stack.stopService("extractor")
  const projects = [
    ...(await provisionProjects(stack.env, ADMISSION_PROJECTS + FRESHNESS_SAMPLES + (cluster === null ? 0 : RECOVERY_PROJECTS)))
  ]
  const batch = projects.splice(0, ADMISSION_PROJECTS)
  let next = 0
  const admissionStarted = performance.now()
  const admitted = await runLoad({
    url: `${stack.baseUrl}/media/download`,
    method: "POST",
    connections: CONNECTIONS,
    amount: batch.length * 2,
    headers: { "content-type": "application/json" },
    body,
    nextRequest: () => ({ headers: { "x-api-key": batch[Math.floor(next++ / 2) % batch.length]!.key } })
  })
  const admissionSeconds = (performance.now() - admissionStarted) / 1000
  const accepted = admitted.statusCounts["202"] ?? 0
  if (accepted !== batch.length * 2) throw new Error(`admission: ${JSON.stringify(admitted.statusCounts)}`)

  note("read-your-writes and freshness")
  const nc = await connect({ servers: stack.nats.url.split(","), maxReconnectAttempts: -1 })
  const js = jetstream(nc)
  let readYourWrites = 0
  const freshness: Array<number> = []
  for (const project of projects.splice(0, FRESHNESS_SAMPLES)) {
    const posted = await api(stack.baseUrl, "POST", "/media/download", project.key, JSON.parse(body))
    const jobId: string = posted.json.data.job_id
    // The other gateway: it has not seen the job at all, so this is the cross-gateway read-your-writes path.
    const read = await api(stack.gatewayUrls[1] ?? stack.baseUrl, "GET", `/jobs/${jobId}`, project.key)
    if (read.status === 200 && read.json.data.status === "queued") readYourWrites++
    const started = { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "bench", at: Date.now() }
    const appendedAt = performance.now()
    await js.publish(jobSubject(project.projectId, jobId), JSON.stringify(started), { msgID: `bench-start:${jobId}` })
    while (performance.now() - appendedAt < 30_000) {
      const seen = await api(stack.gatewayUrls[1] ?? stack.baseUrl, "GET", `/jobs/${jobId}`, project.key)
      if (seen.json?.data?.status === "processing") break
      await sleep(2)
    }
    freshness.push(performance.now() - appendedAt)
  }
  await nc.close()

  const figures: Figures = {
    readYourWrites,
    freshnessMs: median(freshness),
    readsPerSecond: median(reads.map((r) => r.requestsPerSecond)),
    readP50Ms: median(reads.map((r) => r.p50Ms)),
    admittedPerSecond: accepted / admissionSeconds,
    admissionP50Ms: admitted.p50Ms
  }
  if (cluster === null) return figures
  return { ...figures, recovery: await recover(stack, cluster, projects, body) }
}

/** Kills the node leading the most streams, then admits one job every 50 ms (a fresh project each) until one is accepted. */
const recover = async (stack: ServiceStack, cluster: NatsCluster, projects: Array<ProjectKey>, body: string) => {
  const nc = await connect({ servers: cluster.nodes.map((n) => n.url), maxReconnectAttempts: -1, reconnectTimeWait: 250 })
  const jsm = await jetstreamManager(nc)
  const leads = new Map<string, number>()
  for await (const info of jsm.streams.list()) {
    const leader = info.cluster?.leader
    if (leader !== undefined) leads.set(leader, (leads.get(leader) ?? 0) + 1)
  }
  await nc.close()
  const [victimName] = [...leads].sort((a, b) => b[1] - a[1])[0] ?? ["n1"]
  const victim = cluster.node(victimName)
  note(`killing ${victim.name}, which leads ${leads.get(victim.name)} streams`)
  const killedAt = Date.now()
  await victim.kill()
  let refusedMeanwhile = 0
  let firstAdmissionMs = Number.NaN
  while (Date.now() - killedAt < 120_000) {
    const project = projects.shift()
    if (project === undefined) break
    const gateway = stack.gatewayUrls[refusedMeanwhile % stack.gatewayUrls.length] ?? stack.baseUrl
    const response = await api(gateway, "POST", "/media/download", project.key, JSON.parse(body)).catch(() => null)
    if (response?.status === 202) {
      firstAdmissionMs = Date.now() - killedAt
      break
    }
    refusedMeanwhile++
    await sleep(50)
  }
  let followersMs = Number.NaN
  while (Date.now() - killedAt < 120_000) {
    const states = await Promise.all(
      stack.gatewayUrls.map((url) =>
        fetch(`${url}/health`)
          .then((r) => r.json() as Promise<{ data: { followers?: Record<string, string> } }>)
          .catch(() => null)
      )
    )
    // A gateway that reports no followers (a build before they were reported) has nothing to wait for.
    if (states.every((s) => s !== null && s.data.followers === undefined)) break
    if (states.every((s) => s !== null && Object.values(s.data.followers ?? {}).every((f) => f === "following"))) {
      followersMs = Date.now() - killedAt
      break
    }
    await sleep(100)
  }
  await victim.start()
  return { firstAdmissionMs, followersMs, refusedMeanwhile }
}

const media = await startMediaServer()
const results: Array<{ label: string; figures: Figures }> = []
try {
  note("single nats-server: gateway x2, aggregator, extractor")
  const single = await startServiceStack({ gateways: 2, env: { EGRESS_ALLOW: media.hostPort, ...limits } })
  try {
    results.push({ label: "single node", figures: await measure(single, media, null) })
  } finally {
    await single.close()
  }

  note("3-node cluster, NATS_REPLICAS=3: gateway x2, aggregator, extractor")
  const cluster = await startNatsCluster(3)
  try {
    const stack = await startServiceStack({
      gateways: 2,
      nats: clusterAsNatsServer(cluster),
      env: { EGRESS_ALLOW: media.hostPort, NATS_REPLICAS: "3", ...limits }
    })
    try {
      results.push({ label: "3-node cluster", figures: await measure(stack, media, cluster) })
    } finally {
      await stack.close()
    }
  } finally {
    await cluster.close()
  }
} finally {
  await media.close()
}

const [one, three] = results
if (one !== undefined && three !== undefined) {
  const rows: Array<Row> = [
    {
      metric: "job reads (GET /v1/jobs/{id}, 16 connections)",
      value: three.figures.readsPerSecond,
      unit: "req/s",
      reference: { label: "single node", value: one.figures.readsPerSecond },
      target: "informative (reads are served from memory)",
      met: null
    },
    {
      metric: "job read p50",
      value: three.figures.readP50Ms,
      unit: "ms",
      reference: { label: "single node", value: one.figures.readP50Ms },
      target: "informative",
      met: null
    },
    {
      metric: `admission (${ADMISSION_PROJECTS * 2} POSTs over ${ADMISSION_PROJECTS} projects)`,
      value: three.figures.admittedPerSecond,
      unit: "req/s",
      reference: { label: "single node", value: one.figures.admittedPerSecond },
      target: "informative (3 replicas acknowledge every append)",
      met: null
    },
    {
      metric: `GET on the other gateway right after the 202 answers the job (of ${FRESHNESS_SAMPLES})`,
      value: three.figures.readYourWrites,
      unit: "",
      reference: { label: "single node", value: one.figures.readYourWrites },
      target: `= ${FRESHNESS_SAMPLES}`,
      met: three.figures.readYourWrites === FRESHNESS_SAMPLES && one.figures.readYourWrites === FRESHNESS_SAMPLES
    },
    {
      metric: "progress freshness (JobStarted appended → GET answers processing), median",
      value: three.figures.freshnessMs,
      unit: "ms",
      reference: { label: "single node", value: one.figures.freshnessMs },
      target: "informative",
      met: null
    },
    {
      metric: "admission p50",
      value: three.figures.admissionP50Ms,
      unit: "ms",
      reference: { label: "single node", value: one.figures.admissionP50Ms },
      target: "informative",
      met: null
    }
  ]
  const recovery = three.figures.recovery
  if (recovery !== undefined) {
    rows.push(
      atMost("leader killed → first accepted download", recovery.firstAdmissionMs / 1000, "s", 30),
      atMost("leader killed → every gateway follower delivering", recovery.followersMs / 1000, "s", 30),
      {
        metric: "downloads refused meanwhile (503, one try every 50 ms)",
        value: recovery.refusedMeanwhile,
        unit: "",
        reference: null,
        target: "informative",
        met: null
      }
    )
  }
  const met = printTable("High availability: 3-node cluster (replicas 3) against a single node, same run", rows)
  if (!met) process.exitCode = 1
}
