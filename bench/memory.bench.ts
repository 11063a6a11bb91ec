// Memory: gateway RSS under job-read load (2,000 req/s) and extractor RSS while downloading ~300 MB, beside idle RSS.
import { ensureBigMp4, serveFile } from "./support/BigMedia.ts"
import { runLoad } from "./support/HttpLoad.ts"
import { rssBytes, sampleRss } from "./support/ProcessMemory.ts"
import { atMost, note, printTable } from "./support/Report.ts"
import { api, startBenchStack, waitForJob } from "./support/Stack.ts"

const MB = 1024 * 1024

note("preparing a ~300 MB mp4")
const big = await ensureBigMp4()
const files = await serveFile(big.path, big.sizeBytes)
const bench = await startBenchStack({ env: { EGRESS_ALLOW: `${files.hostPort}` } })
try {
  const { stack } = bench
  const { key } = await stack.provisionKey()
  const gatewayPid = stack.pidOf("gateway")
  const extractorPid = stack.pidOf("extractor")
  if (gatewayPid === null || extractorPid === null) throw new Error("services not running")
  await new Promise((r) => setTimeout(r, 2_000))
  const idleGateway = ((await rssBytes(gatewayPid)) ?? 0) / MB
  const idleExtractor = ((await rssBytes(extractorPid)) ?? 0) / MB

  note("a job to read")
  const queued = await api(stack.baseUrl, "POST", "/media/download", key, { url: files.url, format: "video_best" })
  if (queued.status !== 202) throw new Error(`queueing failed: ${queued.text}`)
  const jobId: string = queued.json.data.job_id
  const extractorRss = sampleRss(extractorPid, 50)
  const done = await waitForJob(stack.baseUrl, key, jobId, { intervalMs: 200, timeoutMs: 300_000 })
  const extractorPeak = await extractorRss.stop()
  if (done.json.data.status !== "completed") throw new Error(`the download did not complete: ${done.text}\n${stack.logs()}`)

  note("job-read load: 2,000 req/s for 15 s")
  const gatewayRss = sampleRss(gatewayPid, 50)
  await runLoad({
    url: `${stack.baseUrl}/jobs/${jobId}`,
    headers: { "x-api-key": key },
    connections: 32,
    overallRate: 2_000,
    durationSeconds: 15
  })
  const gatewayPeak = await gatewayRss.stop()

  printTable("memory: peak RSS (sampled every 50 ms from /proc)", [
    atMost("gateway under job-read load (2,000 req/s, 15 s)", gatewayPeak, "MB", 150, { label: "same gateway idle", value: idleGateway }),
    atMost(`extractor while downloading ${(big.sizeBytes / 1e6).toFixed(0)} MB`, extractorPeak, "MB", 120, {
      label: "same extractor idle",
      value: idleExtractor
    })
  ])
} finally {
  await bench.close()
  await files.close()
}
