// The whole service stack for benchmarks (the same processes as the end-to-end tests) with a local media server.
import { type MediaServer, startMediaServer } from "../../test/support/MediaServer.ts"
import { startServiceStack, type ServiceStack } from "../../test/support/ServiceStack.ts"
import { note } from "./Report.ts"

export interface BenchStack {
  readonly stack: ServiceStack
  readonly media: MediaServer
  close(): Promise<void>
}

export const startBenchStack = async (options?: {
  readonly env?: Readonly<Record<string, string>>
  readonly throttleBytesPerSecond?: number
}): Promise<BenchStack> => {
  const media = await startMediaServer(
    options?.throttleBytesPerSecond === undefined ? undefined : { throttleBytesPerSecond: options.throttleBytesPerSecond }
  )
  note("starting nats-server, gateway, aggregator, extractor")
  // MDS_BENCH_PROFILE_DIR=dir: every service writes a V8 CPU profile there when it stops (see bench/support/ProfileSummary.ts).
  // MDS_BENCH_NODE_OPTIONS: extra Node/V8 flags for the services only (e.g. heap sizes), not for the load generator.
  const profileDir = process.env["MDS_BENCH_PROFILE_DIR"]
  const nodeOptions = [
    process.env["MDS_BENCH_NODE_OPTIONS"] ?? "",
    profileDir === undefined ? "" : `--cpu-prof --cpu-prof-dir=${profileDir}`
  ]
    .filter((option) => option !== "")
    .join(" ")
  const profiling = nodeOptions === "" ? {} : { NODE_OPTIONS: nodeOptions }
  // The per-key limits (600 requests a minute, one poll of a job every 2 s) are set out of the load's reach: the limiters
  // still run on every request, but a benchmark hammering one job with one key measures the read path, not 429s.
  const limits = { API_RATE_LIMIT_PER_MINUTE: "1000000000", API_MIN_POLL_INTERVAL_SECONDS: "0" }
  const stack = await startServiceStack({ env: { EGRESS_ALLOW: media.hostPort, ...limits, ...profiling, ...options?.env } })
  return {
    stack,
    media,
    close: async () => {
      await stack.close()
      await media.close()
    }
  }
}

export const api = async (
  baseUrl: string,
  method: "GET" | "POST",
  path: string,
  key: string,
  body?: unknown
): Promise<{ status: number; text: string; json: any }> => {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { "x-api-key": key, ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(120_000)
  })
  const text = await response.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: response.status, text, json }
}

/** Polls GET /jobs/:id every `intervalMs` until the job is completed or failed (bounded by `timeoutMs`). */
export const waitForJob = async (baseUrl: string, key: string, jobId: string, options?: { intervalMs?: number; timeoutMs?: number }) => {
  const deadline = Date.now() + (options?.timeoutMs ?? 120_000)
  while (Date.now() < deadline) {
    const response = await api(baseUrl, "GET", `/jobs/${jobId}`, key)
    const status = response.json?.data?.status
    if (status === "completed" || status === "failed") return response
    await new Promise((r) => setTimeout(r, options?.intervalMs ?? 100))
  }
  throw new Error(`job ${jobId} did not finish within the time limit`)
}
