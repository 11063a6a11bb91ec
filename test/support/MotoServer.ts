// Starts moto's standalone S3 server (pinned, in .tools/moto-venv) on a free 127.0.0.1 port, for S3 adapter tests.
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { resolve } from "node:path"
import { freePort } from "./NatsServer.ts"

/** Installed by deploy/local/setup.sh (mds_ensure_moto), which test.sh runs before the suite. */
export const MOTO_SERVER = resolve(import.meta.dirname, "../../.tools/moto-venv/bin/moto_server")

export interface MotoServer {
  readonly endpoint: string
  close(): Promise<void>
}

const answers = async (url: string) => {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).status > 0
  } catch {
    return false
  }
}

/** `env` adds to moto's environment, e.g. INITIAL_NO_AUTH_ACTION_COUNT=0 to check every request's credentials. */
export const startMotoServer = async (env: Readonly<Record<string, string>> = {}): Promise<MotoServer> => {
  if (!existsSync(MOTO_SERVER)) throw new Error(`${MOTO_SERVER} is missing: run \`bash deploy/local/test.sh\` (it installs moto) first`)
  const port = await freePort()
  const child: ChildProcess = spawn(MOTO_SERVER, ["-H", "127.0.0.1", "-p", String(port)], {
    stdio: ["ignore", "ignore", "pipe"],
    env: { ...process.env, ...env }
  })
  let stderr = ""
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000)
  })
  const endpoint = `http://127.0.0.1:${port}`
  const deadline = Date.now() + 30_000
  while (!(await answers(`${endpoint}/moto-api/`))) {
    if (child.exitCode !== null) throw new Error(`moto_server exited with ${child.exitCode}\n${stderr}`)
    if (Date.now() > deadline) {
      child.kill("SIGKILL")
      throw new Error(`moto_server did not answer on ${endpoint} within 30 s\n${stderr}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolveClose) => {
        if (child.exitCode !== null) return resolveClose()
        child.once("exit", () => resolveClose())
        child.kill("SIGTERM")
      })
  }
}
