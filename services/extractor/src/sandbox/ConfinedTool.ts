// One run of a media tool (ffmpeg, ffprobe) under the process's confinement: its stdout (bounded), the tail of its
// stderr for a failure, and a deadline where the caller sets one. Interrupting the effect (a canceled or timed-out job)
// kills the run and every process it started.
import { Effect } from "effect"
import { type ConfinementShape, killRunTree } from "./Confinement.ts"

export interface ToolRunLimits {
  /** The egress proxy the run reaches the network through; null: local files only, no network at all. */
  readonly proxyUrl: string | null
  /** stdout beyond this many bytes kills the run (it then fails). */
  readonly outputLimit: number
  /**
   * Kills the run after this long (it then fails saying so): for runs that wait on a remote server. Null for runs on
   * local files, whose time grows with the file (a long recording's remux): the job's own deadline and cancel bound them.
   */
  readonly timeoutMs: number | null
}

const STDERR_TAIL = 2000

/** stdout as text, or `fail` with what went wrong (the tool's last stderr, its exit, or the deadline). */
export const runConfinedTool = <E>(
  confinement: ConfinementShape,
  tool: string,
  args: ReadonlyArray<string>,
  limits: ToolRunLimits,
  fail: (message: string) => E
) =>
  Effect.callback<string, E>((resume) => {
    let child: ReturnType<ConfinementShape["spawn"]>
    try {
      child = confinement.spawn(tool, args, { proxyUrl: limits.proxyUrl })
    } catch (error) {
      resume(Effect.fail(fail(String(error))))
      return
    }
    const stdout: Array<Buffer> = []
    let stdoutBytes = 0
    let stderr = ""
    let timedOut = false
    child.stdin.end()
    child.stdout.on("data", (chunk: Buffer) => {
      stdoutBytes += chunk.length
      if (stdoutBytes > limits.outputLimit) killRunTree(child)
      else stdout.push(chunk)
    })
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_TAIL)
    })
    const timer =
      limits.timeoutMs === null
        ? undefined
        : setTimeout(() => {
            timedOut = true
            killRunTree(child)
          }, limits.timeoutMs)
    child.once("error", (error) => {
      clearTimeout(timer)
      resume(Effect.fail(fail(error.message)))
    })
    child.once("close", (exitCode, signal) => {
      clearTimeout(timer)
      // Too much output fails the run even when the tool exited before the kill reached it: what was kept is cut short.
      if (stdoutBytes > limits.outputLimit) resume(Effect.fail(fail(`${tool} wrote more than ${limits.outputLimit} bytes`)))
      else if (exitCode === 0) resume(Effect.succeed(Buffer.concat(stdout).toString("utf8")))
      else if (timedOut) resume(Effect.fail(fail(`${tool} did not finish within ${(limits.timeoutMs ?? 0) / 1000} s`)))
      else resume(Effect.fail(fail(stderr || `${tool} ended with ${signal ?? `exit code ${exitCode}`}`)))
    })
    return Effect.sync(() => {
      clearTimeout(timer)
      killRunTree(child)
    })
  })
