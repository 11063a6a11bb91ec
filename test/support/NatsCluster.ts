// Starts a throwaway JetStream cluster of the pinned nats-server on loopback (free ports, temporary stores), for tests
// and benchmarks that kill, restart and roll its nodes.
import { type ChildProcess, spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import {
  freePort,
  type NatsProcess,
  type NatsServer,
  natsServerBinary,
  onFreshPorts,
  SERVER_READY,
  waitUntilListening
} from "./NatsServer.ts"

/** A node of the cluster: `stop` and `start` are a rolling restart's steps. */
export interface NatsClusterNode extends NatsProcess {
  /** Server name (`n1`, `n2`, ...): what JetStream reports as a stream's or consumer's leader. */
  readonly name: string
  /** Monitoring port (HTTP: /healthz, /jsz). */
  readonly monitorPort: number
  /** SIGKILL: no shutdown at all, as when a machine dies. Resolves once the process is gone. */
  kill(): Promise<void>
  /** SIGSTOP / SIGCONT: a node that is alive but answers nothing (a stalled machine), then carries on. */
  pause(): void
  resume(): void
  /** Whether JetStream on this node answers healthy (it knows a meta leader and its streams are current). */
  healthy(): Promise<boolean>
  running(): boolean
}

export interface NatsCluster {
  readonly nodes: ReadonlyArray<NatsClusterNode>
  /** Every node's URL, comma-separated: the NATS_URL a service gets, so it reconnects to any survivor. */
  readonly url: string
  node(name: string): NatsClusterNode
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

const fetchHealthy = async (monitorPort: number): Promise<boolean> => {
  try {
    const response = await fetch(`http://127.0.0.1:${monitorPort}/healthz`, { signal: AbortSignal.timeout(2_000) })
    return response.ok
  } catch {
    return false
  }
}

interface MetaCluster {
  readonly leader?: string
  readonly replicas?: ReadonlyArray<{ readonly name: string; readonly current: boolean; readonly offline?: boolean }>
}

const metaOf = async (monitorPort: number): Promise<MetaCluster | undefined> => {
  const response = await fetch(`http://127.0.0.1:${monitorPort}/jsz`, { signal: AbortSignal.timeout(2_000) })
  return ((await response.json()) as { meta_cluster?: MetaCluster }).meta_cluster
}

/** Whether the meta leader (asked itself) counts at least `peers` current members, itself included. */
const metaCurrent = async (nodes: ReadonlyArray<NatsClusterNode>, peers: number): Promise<boolean> => {
  try {
    const first = nodes[0]
    const leaderName = first === undefined ? undefined : (await metaOf(first.monitorPort))?.leader
    const leader = nodes.find((n) => n.name === leaderName)
    if (leader === undefined) return false
    const meta = await metaOf(leader.monitorPort)
    return meta?.leader === leader.name && 1 + (meta.replicas ?? []).filter((r) => r.current && r.offline !== true).length >= peers
  } catch {
    return false
  }
}

/**
 * Waits until every running node answers /healthz (JetStream up, meta leader known, assets current) and the meta
 * group counts every running node as current: before that, creating a stream with 3 replicas can fail with "no
 * suitable peers for placement".
 */
export const waitUntilHealthy = async (nodes: ReadonlyArray<NatsClusterNode>, timeoutMs = 30_000): Promise<void> => {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const running = nodes.filter((n) => n.running())
    const states = await Promise.all(running.map((n) => n.healthy()))
    if (states.every(Boolean) && (await metaCurrent(running, running.length))) return
    await sleep(100)
  }
  throw new Error(`the NATS cluster was not healthy within ${timeoutMs} ms`)
}

export const startNatsCluster = (size = 3): Promise<NatsCluster> =>
  onFreshPorts(async () => {
    const cluster = await clusterOnFreePorts(size)
    try {
      await Promise.all(cluster.nodes.map((n) => n.start()))
      await waitUntilHealthy(cluster.nodes)
      return cluster
    } catch (error) {
      await cluster.close()
      throw error
    }
  })

const clusterOnFreePorts = async (size: number): Promise<NatsCluster> => {
  const specs: Array<{ name: string; port: number; clusterPort: number; monitorPort: number; storeDir: string }> = []
  for (let i = 1; i <= size; i++) {
    specs.push({
      name: `n${i}`,
      port: await freePort(),
      clusterPort: await freePort(),
      monitorPort: await freePort(),
      storeDir: await mkdtemp(join(tmpdir(), `mds-nats-n${i}-`))
    })
  }
  const routes = specs.map((s) => `nats://127.0.0.1:${s.clusterPort}`).join(",")
  const binary = natsServerBinary()

  const nodes = specs.map((spec): NatsClusterNode => {
    let child: ChildProcess | null = null
    let stderr = ""
    const exited = (proc: ChildProcess) =>
      proc.exitCode !== null || proc.signalCode !== null
        ? Promise.resolve()
        : new Promise<void>((resolve) => proc.once("exit", () => resolve()))
    const halt = async (signal: NodeJS.Signals) => {
      const proc = child
      child = null
      if (proc === null) return
      const gone = exited(proc)
      proc.kill(signal)
      await gone
    }
    return {
      name: spec.name,
      url: `nats://127.0.0.1:${spec.port}`,
      port: spec.port,
      monitorPort: spec.monitorPort,
      start: async () => {
        // What this start prints: a restarted node's earlier "ready" says nothing of this run.
        stderr = ""
        const proc = spawn(
          binary,
          [
            "-a",
            "127.0.0.1",
            "-p",
            String(spec.port),
            "-m",
            String(spec.monitorPort),
            "-n",
            spec.name,
            "-js",
            "-sd",
            spec.storeDir,
            "--cluster_name",
            "mds",
            "--cluster",
            `nats://127.0.0.1:${spec.clusterPort}`,
            "--routes",
            routes
          ],
          { stdio: ["ignore", "ignore", "pipe"] }
        )
        proc.stderr?.on("data", (chunk: Buffer) => {
          stderr = (stderr + chunk.toString()).slice(-4000)
        })
        child = proc
        try {
          await waitUntilListening(spec.port, proc, () => stderr.includes(SERVER_READY))
        } catch (error) {
          throw new Error(`${spec.name}: ${String(error)}\n${stderr}`)
        }
      },
      kill: () => halt("SIGKILL"),
      pause: () => {
        child?.kill("SIGSTOP")
      },
      resume: () => {
        child?.kill("SIGCONT")
      },
      stop: () => halt("SIGTERM"),
      healthy: () => fetchHealthy(spec.monitorPort),
      running: () => child !== null,
      pid: () => child?.pid ?? null
    }
  })

  return {
    nodes,
    url: nodes.map((n) => n.url).join(","),
    node: (name) => {
      const found = nodes.find((n) => n.name === name)
      if (found === undefined) throw new Error(`no node ${name}`)
      return found
    },
    close: async () => {
      await Promise.all(nodes.map((n) => n.kill()))
      await Promise.all(specs.map((s) => rm(s.storeDir, { recursive: true, force: true })))
    }
  }
}

/**
 * The cluster seen as the one NATS of a ServiceStack: its URL lists every node; stop and start act on every node
 * (a whole-cluster outage), close is left to the cluster's owner.
 */
export const clusterAsNatsServer = (cluster: NatsCluster): NatsServer => ({
  url: cluster.url,
  port: cluster.nodes[0]?.port ?? 0,
  storeDir: "",
  stop: async () => {
    await Promise.all(cluster.nodes.map((n) => n.stop()))
  },
  start: async () => {
    await Promise.all(cluster.nodes.map((n) => n.start()))
    await waitUntilHealthy(cluster.nodes)
  },
  close: async () => undefined,
  pid: () => cluster.nodes[0]?.pid() ?? null
})
