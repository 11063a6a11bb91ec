// Runs one yt-dlp binary in its sandbox: the process, its output and its failure, for whichever release a caller names.
import youtubeDlExec from "youtube-dl-exec"
import { Effect, Schema } from "effect"
import { type ConfinementShape, killRunTree } from "../sandbox/Confinement.ts"
import type { YtDlpFlags } from "./YtDlpFlags.ts"

export class YtDlpFailed extends Schema.TaggedError<YtDlpFailed>()("YtDlpFailed", {
  exitCode: Schema.NullOr(Schema.Number),
  stderr: Schema.String
}) {}

export interface YtDlpRun {
  readonly stdout: string
  readonly stderr: string
}

export interface YtDlpRunOptions {
  readonly cwd?: string
  /** Called with every stdout line as it arrives (progress). */
  readonly onLine?: (line: string) => void
  /** Called with every stderr line as it arrives (curl's progress meter, which yt-dlp passes through). */
  readonly onErrorLine?: (line: string) => void
  /**
   * True only when nothing the run reads can ask for browser impersonation (no --impersonate, a stored info without
   * `impersonate`): curl_cffi is then kept out of its start. A run from a page never says so: some site extractors
   * impersonate unasked.
   */
  readonly withoutImpersonation?: boolean
}

export interface YtDlpShape {
  readonly version: Effect.Effect<string, YtDlpFailed>
  readonly listExtractors: Effect.Effect<ReadonlyArray<string>, YtDlpFailed>
  /**
   * `url` goes after "--", so it can never be read as an option. The run's network is `flags.proxy` (an open egress
   * proxy) and nothing else; without `proxy` the run has no network at all.
   */
  run(url: string, flags: YtDlpFlags, options?: YtDlpRunOptions): Effect.Effect<YtDlpRun, YtDlpFailed>
}

const STDERR_LIMIT = 64 * 1024

/** youtube-dl-exec's own flag conversion (camelCase to --kebab-case, `false` to --no-x), which its types omit. */
const toArgs = (youtubeDlExec as unknown as { args: (flags: YtDlpFlags) => Array<string> }).args

/**
 * `binaryPath` is read when each run starts: after the fleet switches releases (releases/ActiveRelease) new runs use the
 * new binary while runs already going finish on the old one.
 */
export const makeYtDlp = (binaryPath: string | (() => string), confinement: ConfinementShape): YtDlpShape => {
  const pathOf = typeof binaryPath === "string" ? () => binaryPath : binaryPath
  const run = (url: string, flags: YtDlpFlags, options: YtDlpRunOptions = {}) =>
    Effect.callback<YtDlpRun, YtDlpFailed>((resume) => {
      const stdout: Array<string> = []
      let stderr = ""
      let pending = ""
      let pendingError = ""
      const proxyUrl = typeof flags.proxy === "string" ? flags.proxy : null
      let child: ReturnType<ConfinementShape["spawn"]>
      try {
        child = confinement.spawn(
          pathOf(),
          [...toArgs(flags), "--", url].filter((arg) => arg !== ""),
          { cwd: options.cwd, proxyUrl, withoutImpersonation: options.withoutImpersonation === true }
        )
      } catch (error) {
        resume(Effect.fail(new YtDlpFailed({ exitCode: null, stderr: String(error) })))
        return
      }
      child.stdout.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8")
        stdout.push(text)
        if (options.onLine === undefined) return
        pending += text
        const lines = pending.split(/\r?\n|\r/)
        pending = lines.pop() ?? ""
        for (const line of lines) options.onLine(line)
      })
      child.stderr.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8")
        stderr = (stderr + text).slice(-STDERR_LIMIT)
        if (options.onErrorLine === undefined) return
        // curl redraws its meter after a carriage return; the tail is capped like stderr itself.
        const lines = (pendingError + text).split(/\r?\n|\r/)
        pendingError = (lines.pop() ?? "").slice(-STDERR_LIMIT)
        for (const line of lines) options.onErrorLine(line)
      })
      child.stdin.end()
      child.once("error", (error) => resume(Effect.fail(new YtDlpFailed({ exitCode: null, stderr: String(error) }))))
      child.once("close", (exitCode) => {
        if (pending !== "" && options.onLine !== undefined) options.onLine(pending)
        if (exitCode === 0) resume(Effect.succeed({ stdout: stdout.join(""), stderr }))
        else resume(Effect.fail(new YtDlpFailed({ exitCode, stderr })))
      })
      return Effect.sync(() => {
        killRunTree(child)
      })
    })

  return {
    version: Effect.map(run("", { version: true }), (r) => r.stdout.trim()),
    listExtractors: Effect.map(run("", { listExtractors: true }), (r) =>
      r.stdout
        .split("\n")
        .map((line) => line.trim())
        .filter((line) => line !== "")
    ),
    run
  }
}
