// Start-up: `npm start` (deploy/local/start.sh, already installed) until GET /v1/health answers 200, against a bare fastify process.
import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { freePort } from "../test/support/NatsServer.ts"
import { REPO_ROOT } from "../test/support/ServiceStack.ts"
import { median, note, printTable } from "./support/Report.ts"

const SAMPLES = 3
const LIMIT_MS = 60_000

/** Spawns a command in its own process group and measures until `url` answers 200; then stops the whole group. */
const timeToHealthy = async (command: string, args: ReadonlyArray<string>, url: string, env: Record<string, string>) => {
  const started = performance.now()
  const child = spawn(command, args, { cwd: REPO_ROOT, env: { ...process.env, ...env }, stdio: "ignore", detached: true })
  try {
    while (performance.now() - started < LIMIT_MS) {
      if (child.exitCode !== null) throw new Error(`${command} ${args.join(" ")} exited with ${child.exitCode}`)
      const ok = await fetch(url, { signal: AbortSignal.timeout(1_000) }).then(
        (r) => r.status === 200,
        () => false
      )
      if (ok) return performance.now() - started
      await new Promise((r) => setTimeout(r, 25))
    }
    throw new Error(`${url} did not answer 200 within ${LIMIT_MS} ms`)
  } finally {
    await new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve()
      child.once("close", () => resolve())
      process.kill(-child.pid!, "SIGTERM")
      setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL")
        } catch {
          // already gone
        }
      }, 15_000).unref()
    })
  }
}

const stack: Array<number> = []
const bare: Array<number> = []
for (let i = 0; i < SAMPLES; i++) {
  note(`sample ${i + 1}/${SAMPLES}`)
  const dataDir = await mkdtemp(join(tmpdir(), "mds-bench-start-"))
  const [port, natsPort, barePort] = [await freePort(), await freePort(), await freePort()]
  try {
    // A fresh data dir each time: first start of a new installation (streams, buckets and secrets created).
    // NATS_URL empty: start.sh runs its embedded nats-server, as on a developer machine.
    const env = { DATA_DIR: dataDir, PORT: String(port), NATS_PORT: String(natsPort), NATS_URL: "", MDS_SETUP_QUIET: "1" }
    stack.push(await timeToHealthy("npm", ["start"], `http://127.0.0.1:${port}/v1/health`, env))
    bare.push(
      await timeToHealthy(process.execPath, ["bench/support/BareFastify.ts"], `http://127.0.0.1:${barePort}/v1/jobs/x`, {
        BARE_PORT: String(barePort),
        BARE_BODY: "{}"
      })
    )
  } finally {
    await rm(dataDir, { recursive: true, force: true })
  }
}

printTable(`startup: npm start to healthy (median of ${SAMPLES}, fresh data directory each)`, [
  {
    metric: "npm start → GET /v1/health 200",
    value: median(stack) / 1000,
    unit: "s",
    reference: { label: "bare fastify process", value: median(bare) / 1000 },
    target: "≤ 5 s",
    met: median(stack) <= 5_000
  }
])
