// Starts the whole service stack (nats-server, gateway(s), aggregator, extractor) as real processes, for end-to-end tests.
import { type ChildProcess, spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join, resolve } from "node:path"
import { fileURLToPath } from "node:url"
import { freePort, type NatsServer, startNatsServer } from "./NatsServer.ts"

export type ServiceName = "gateway" | "aggregator" | "extractor"

export interface ServiceStack {
  /** "http://127.0.0.1:PORT/v1" of the first gateway. */
  readonly baseUrl: string
  /** One "http://127.0.0.1:PORT/v1" per gateway process. */
  readonly gatewayUrls: ReadonlyArray<string>
  readonly nats: NatsServer
  readonly dataDir: string
  readonly env: Readonly<Record<string, string>>
  /** Runs the admin CLI with the stack's env; resolves trimmed stdout, rejects with stderr on a non-zero exit. */
  cli(args: ReadonlyArray<string>): Promise<string>
  /** Creates a project and a key in it through the CLI. */
  provisionKey(options?: {
    readonly scopes?: ReadonlyArray<string>
    readonly env?: "live" | "test"
  }): Promise<{ readonly projectId: string; readonly key: string }>
  stopService(name: ServiceName, signal?: NodeJS.Signals): Promise<void>
  startService(name: ServiceName): Promise<void>
  /** The processes' labels: "gateway" or "gateway#i", "aggregator", "extractor" or "extractor#i". */
  readonly labels: ReadonlyArray<string>
  /** Stops one process (e.g. kill -9 of one extractor) and waits until it is gone. */
  stopProcess(label: string, signal?: NodeJS.Signals): Promise<void>
  startProcess(label: string): Promise<void>
  /** Whether the labelled process is running now. */
  isRunning(label: string): boolean
  /** Recent output of every service, to put in failure messages. */
  logs(): string
  /** Process id of a running service ("gateway", "gateway#1", "aggregator", "extractor"), e.g. to sample its memory. */
  pidOf(label: string): number | null
  close(): Promise<void>
}

export const REPO_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), "..", "..")

/** The Node flags deploy/local/start.sh and the Dockerfiles give every service: tests run what production runs. */
export const SERVICE_NODE_FLAGS = ["--max-semi-space-size=4"]

/**
 * Node's compile cache, as setup.sh (so npm start and npm test) and the Dockerfiles set it: a warm start reuses the
 * stripped TypeScript and V8's code, so the type-stripping WebAssembly module (~18 MB) is never loaded. The one
 * setup.sh exported when there is one, shared with npm start; else one directory for every stack.
 */
export const SERVICE_NODE_ENV = { NODE_COMPILE_CACHE: process.env["NODE_COMPILE_CACHE"] ?? join(tmpdir(), "mds-node-compile-cache") }

const READY_TIMEOUT_MS = 90_000
const STOP_GRACE_MS = 5_000
const LOG_LINES_KEPT = 200

/** One running service process plus the tail of its output. */
interface RunningService {
  readonly label: string
  child: ChildProcess | null
  readonly lines: Array<string>
  readyWaiters: Array<() => void>
  ready: boolean
}

const appendLines = (service: RunningService, chunk: Buffer, partial: { text: string }, isCurrent: () => boolean) => {
  partial.text += chunk.toString()
  const pieces = partial.text.split("\n")
  partial.text = pieces.pop() ?? ""
  for (const line of pieces) {
    service.lines.push(line)
    if (service.lines.length > LOG_LINES_KEPT) service.lines.shift()
    // "ready" as a whole word, so "not ready" style lines are rare enough to ignore, and any casing is fine.
    if (!service.ready && isCurrent() && /\bready\b/i.test(line)) {
      service.ready = true
      for (const notify of service.readyWaiters.splice(0)) notify()
    }
  }
}

const spawnService = (service: RunningService, entry: string, env: Record<string, string>) => {
  service.ready = false
  const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, entry], { cwd: REPO_ROOT, env, stdio: ["ignore", "pipe", "pipe"] })
  service.child = child
  const out = { text: "" }
  const err = { text: "" }
  const isCurrent = () => service.child === child
  child.stdout?.on("data", (chunk: Buffer) => appendLines(service, chunk, out, isCurrent))
  child.stderr?.on("data", (chunk: Buffer) => appendLines(service, chunk, err, isCurrent))
  // "close" rather than "exit": it comes after the last output, so the tail holds the dying words.
  child.on("close", (code, signal) => {
    service.lines.push(`[harness] ${service.label} exited code=${code} signal=${signal}`)
    // A replaced process's late close must not fail the wait for its successor.
    if (isCurrent()) for (const notify of service.readyWaiters.splice(0)) notify()
  })
  return child
}

const waitForReady = (service: RunningService, logs: () => string) =>
  new Promise<void>((resolvePromise, reject) => {
    const child = service.child
    if (child === null) return reject(new Error(`${service.label} is not running`))
    const timer = setTimeout(
      () => reject(new Error(`${service.label} printed no "ready" line within ${READY_TIMEOUT_MS} ms\n${logs()}`)),
      READY_TIMEOUT_MS
    )
    const settle = () => {
      clearTimeout(timer)
      if (service.ready && child.exitCode === null && child.signalCode === null) resolvePromise()
      else reject(new Error(`${service.label} exited before it was ready\n${logs()}`))
    }
    if (service.ready || child.exitCode !== null || child.signalCode !== null) return settle()
    service.readyWaiters.push(settle)
  })

const stopChild = async (child: ChildProcess | null, signal: NodeJS.Signals) => {
  if (child === null || child.exitCode !== null || child.signalCode !== null) return
  await new Promise<void>((resolvePromise) => {
    const killer = setTimeout(() => child.kill("SIGKILL"), STOP_GRACE_MS)
    child.once("close", () => {
      clearTimeout(killer)
      resolvePromise()
    })
    child.kill(signal)
  })
}

const waitForHealth = async (url: string, logs: () => string) => {
  const deadline = Date.now() + READY_TIMEOUT_MS
  let last = "no answer"
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/health`, { signal: AbortSignal.timeout(5_000) })
      if (response.status === 200) return
      last = `status ${response.status}: ${await response.text()}`
    } catch (error) {
      last = String(error)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`GET ${url}/health did not answer 200 (${last})\n${logs()}`)
}

const runCli = (args: ReadonlyArray<string>, env: Record<string, string>) =>
  new Promise<string>((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join("services", "gateway", "src", "cli", "main.ts"), ...args], {
      cwd: REPO_ROOT,
      env,
      stdio: ["ignore", "pipe", "pipe"]
    })
    let stdout = ""
    let stderr = ""
    const timer = setTimeout(() => child.kill("SIGKILL"), 60_000)
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    // "close", not "exit": only then has all of stdout been read.
    child.on("close", (code, signal) => {
      clearTimeout(timer)
      if (code === 0) resolvePromise(stdout.trim())
      else reject(new Error(`cli ${args.join(" ")} exited code=${code} signal=${signal}\nstderr: ${stderr}\nstdout: ${stdout}`))
    })
  })

const defaultYtDlpPath = () => process.env["YT_DLP_PATH"] ?? join(REPO_ROOT, ".tools", "venv", "bin", "yt-dlp")

export interface ServiceStackOptions {
  readonly env?: Readonly<Record<string, string>>
  /** Settings for one kind of service only (e.g. a METRICS_PORT each), on top of `env`. */
  readonly serviceEnv?: Partial<Record<ServiceName, Readonly<Record<string, string>>>>
  readonly gateways?: number
  /** Extractor processes; each gets WORKER_ID = its label, so JobStarted.workerId names the process. */
  readonly extractors?: number
  /** A NATS the caller owns (e.g. a cluster, see NatsCluster.ts): the stack neither starts nor closes it. */
  readonly nats?: NatsServer
}

export const startServiceStack = async (options?: ServiceStackOptions): Promise<ServiceStack> => {
  const gatewayCount = options?.gateways ?? 1
  const extractorCount = options?.extractors ?? 1
  const nats = options?.nats ?? (await startNatsServer())
  const dataDir = await mkdtemp(join(tmpdir(), "mds-e2e-"))
  const ports = await Promise.all(Array.from({ length: gatewayCount }, () => freePort()))
  const urlOf = (index: number) => `http://127.0.0.1:${ports[index]}/v1`

  // The parent env is kept (PATH, HOME) but every setting the services read is set explicitly.
  const env: Record<string, string> = {
    ...Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined)),
    PATH: `${dirname(process.execPath)}:${process.env["PATH"] ?? ""}`,
    NATS_URL: nats.url,
    DATA_DIR: dataDir,
    HOST: "127.0.0.1",
    PORT: String(ports[0]),
    PUBLIC_BASE_URL: `http://127.0.0.1:${ports[0]}`,
    API_KEY_PEPPER: randomBytes(32).toString("hex"),
    DOWNLOAD_URL_SECRET: randomBytes(32).toString("hex"),
    COOKIES_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    DESTINATIONS_ENCRYPTION_KEY: randomBytes(32).toString("hex"),
    YT_DLP_PATH: defaultYtDlpPath(),
    ...SERVICE_NODE_ENV,
    LOG_LEVEL: process.env["MDS_E2E_LOG_LEVEL"] ?? "Info",
    ...options?.env
  }

  const services = new Map<string, RunningService>()
  const serviceFor = (label: string) => {
    const existing = services.get(label)
    if (existing !== undefined) return existing
    const created: RunningService = { label, child: null, lines: [], readyWaiters: [], ready: false }
    services.set(label, created)
    return created
  }
  const logs = () => [...services.values()].map((s) => `----- ${s.label} (last ${s.lines.length} lines)\n${s.lines.join("\n")}`).join("\n")

  const gatewayLabels = ports.map((_, i) => (gatewayCount === 1 ? "gateway" : `gateway#${i}`))
  const extractorLabels = Array.from({ length: extractorCount }, (_, i) => (extractorCount === 1 ? "extractor" : `extractor#${i}`))
  const labelsOf = (name: ServiceName) => (name === "gateway" ? gatewayLabels : name === "extractor" ? extractorLabels : [name])

  let handedOut = false
  const portRetries: Array<number> = []
  const startOne = async (label: string): Promise<void> => {
    const service = serviceFor(label)
    // Starting a running service is a no-op: a second process would be orphaned and outlive close().
    const running = service.child
    if (running !== null && running.exitCode === null && running.signalCode === null) return waitForReady(service, logs)
    const index = gatewayLabels.indexOf(label)
    const isExtractor = extractorLabels.includes(label)
    // Every gateway gets its own port; download links all point at the first one, which shares the artifact dir.
    const name = index >= 0 ? "gateway" : isExtractor ? "extractor" : label
    const own = {
      ...env,
      ...options?.serviceEnv?.[name as ServiceName],
      ...(isExtractor && extractorCount > 1 ? { WORKER_ID: label } : {})
    }
    const serviceEnv = index >= 0 ? { ...own, PORT: String(ports[index]) } : own
    const linesBefore = service.lines.length
    spawnService(service, join("services", name, "src", "main.ts"), serviceEnv)
    try {
      await waitForReady(service, logs)
    } catch (error) {
      // A free port can be taken by another process between freePort() and the gateway's listen (tests run side by
      // side): before the stack has handed out its URLs, the gateway simply gets another port.
      const taken = service.lines.slice(linesBefore).some((line) => line.includes("EADDRINUSE"))
      if (index < 0 || handedOut || !taken || (portRetries[index] = (portRetries[index] ?? 0) + 1) > 3) throw error
      const previous = ports[index]
      ports[index] = await freePort()
      if (index === 0) {
        env["PORT"] = String(ports[0])
        // Links point at the first gateway, unless the caller chose their base itself.
        if (env["PUBLIC_BASE_URL"] === `http://127.0.0.1:${previous}`) env["PUBLIC_BASE_URL"] = `http://127.0.0.1:${ports[0]}`
      }
      return startOne(label)
    }
    if (index >= 0) await waitForHealth(urlOf(index), logs)
  }

  const startService = async (name: ServiceName) => {
    await Promise.all(labelsOf(name).map(startOne))
  }
  const stopService = async (name: ServiceName, signal: NodeJS.Signals = "SIGTERM") => {
    await Promise.all(labelsOf(name).map((label) => stopChild(services.get(label)?.child ?? null, signal)))
  }

  const close = async () => {
    await Promise.all([...services.values()].map((s) => stopChild(s.child, "SIGTERM")))
    if (options?.nats === undefined) await nats.close()
    await rm(dataDir, { recursive: true, force: true })
  }

  try {
    // The first gateway creates the streams alone; the rest then start side by side.
    await startOne(gatewayLabels[0] ?? "gateway")
    await Promise.all([...gatewayLabels.slice(1).map(startOne), startOne("aggregator"), ...extractorLabels.map(startOne)])
  } catch (error) {
    await close()
    throw error
  }

  const cli = (args: ReadonlyArray<string>) => runCli(args, env)
  const provisionKey = async (keyOptions?: { readonly scopes?: ReadonlyArray<string>; readonly env?: "live" | "test" }) => {
    const projectId = await cli(["project", "create", `e2e-${randomBytes(4).toString("hex")}`])
    const scopes = keyOptions?.scopes ?? ["media:resolve", "media:download"]
    const key = await cli([
      "key",
      "create",
      "--project",
      projectId,
      "--name",
      "e2e",
      "--scopes",
      scopes.join(","),
      "--env",
      keyOptions?.env ?? "live"
    ])
    return { projectId, key }
  }

  const knownLabel = (label: string) => {
    if (![...gatewayLabels, "aggregator", ...extractorLabels].includes(label)) throw new Error(`no process labelled ${label}`)
    return label
  }
  const isRunning = (label: string) => {
    const child = services.get(knownLabel(label))?.child ?? null
    return child !== null && child.exitCode === null && child.signalCode === null
  }

  handedOut = true
  const gatewayUrls = ports.map((_, index) => urlOf(index))
  return {
    baseUrl: gatewayUrls[0] ?? "",
    labels: [...gatewayLabels, "aggregator", ...extractorLabels],
    stopProcess: (label, signal = "SIGTERM") => stopChild(services.get(knownLabel(label))?.child ?? null, signal),
    startProcess: (label) => startOne(knownLabel(label)),
    isRunning,
    gatewayUrls,
    nats,
    dataDir,
    env,
    cli,
    provisionKey,
    stopService,
    startService,
    logs,
    pidOf: (label: string) => services.get(label)?.child?.pid ?? null,
    close
  }
}
