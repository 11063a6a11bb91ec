// The command-line tools stop quietly when their reader goes away (`mds platforms | head -1`), as Unix tools do.
import { spawn } from "node:child_process"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type NatsServer, startNatsServer } from "../../support/NatsServer.ts"
import { REPO_ROOT } from "../../support/ServiceStack.ts"

interface Ended {
  readonly code: number | null
  readonly signal: NodeJS.Signals | null
  readonly stderr: string
}

/** Runs a CLI whose stdout pipe is closed at once, before it writes anything: its first write meets EPIPE. */
const runWithClosedStdout = (script: string, args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) =>
  new Promise<Ended>((resolve, reject) => {
    const child = spawn(process.execPath, [join(REPO_ROOT, script), ...args], {
      env: { PATH: process.env["PATH"] ?? "", HOME: process.env["HOME"] ?? "", ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    child.stdout.destroy()
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve({ code, signal, stderr }))
  })

/** What a shell shows for a process stopped by SIGPIPE, and nothing on stderr. */
const expectQuietPipeExit = (ended: Ended) => {
  expect(ended.stderr).toBe("")
  expect(ended.code).toBe(141)
}

describe("a CLI whose output is closed", () => {
  it("mds exits quietly instead of crashing with an EPIPE stack trace", async () => {
    expectQuietPipeExit(await runWithClosedStdout("packages/client/src/cli/main.ts", ["--help"]))
  })

  describe("the admin CLI", () => {
    let nats: NatsServer
    beforeAll(async () => {
      nats = await startNatsServer()
    })
    afterAll(async () => {
      await nats?.close()
    })

    it("exits quietly after doing its work", async () => {
      expectQuietPipeExit(
        await runWithClosedStdout("services/gateway/src/cli/main.ts", ["project", "create", "Closed pipe"], {
          NATS_URL: nats.url,
          API_KEY_PEPPER: "p".repeat(64),
          DOWNLOAD_URL_SECRET: "d".repeat(64),
          COOKIES_ENCRYPTION_KEY: "c".repeat(64)
        })
      )
    })
  })
})
