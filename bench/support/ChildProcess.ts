// Starts a helper process for a benchmark, waits for its "ready" line, and stops it again.
import { type ChildProcess, spawn } from "node:child_process"

export interface Helper {
  readonly child: ChildProcess
  stop(): Promise<void>
}

export const startHelper = (args: ReadonlyArray<string>, env: Record<string, string>, timeoutMs = 30_000): Promise<Helper> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "inherit"] })
    const timer = setTimeout(() => {
      child.kill("SIGKILL")
      reject(new Error(`${args.join(" ")} printed no ready line within ${timeoutMs} ms`))
    }, timeoutMs)
    let out = ""
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk.toString()
      if (/\bready\b/.test(out)) {
        clearTimeout(timer)
        resolve({
          child,
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null || child.signalCode !== null) return done()
              child.once("close", () => done())
              child.kill("SIGTERM")
              setTimeout(() => child.kill("SIGKILL"), 5_000).unref()
            })
        })
      }
    })
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`${args.join(" ")} exited with ${code} before it was ready`))
    })
  })
