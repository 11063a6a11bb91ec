// Runs the pinned yt-dlp binary through youtube-dl-exec, streaming its output lines and killing it when interrupted.
import { create, type Flags } from "youtube-dl-exec"
import { Config, Context, Effect, Layer, Schema } from "effect"
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
}

export interface YtDlpShape {
  readonly version: Effect.Effect<string, YtDlpFailed>
  readonly listExtractors: Effect.Effect<ReadonlyArray<string>, YtDlpFailed>
  /** `url` goes after "--", so it can never be read as an option. */
  run(url: string, flags: YtDlpFlags, options?: YtDlpRunOptions): Effect.Effect<YtDlpRun, YtDlpFailed>
}

const STDERR_LIMIT = 64 * 1024

/** Kills yt-dlp and everything it started (ffmpeg merging, cutting or converting): a cancel stops all of it at once. */
const killGroup = (child: { readonly pid?: number | undefined; kill(signal: NodeJS.Signals): boolean }) => {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL")
  } catch {
    // The group is already gone (yt-dlp exited and its children with it).
  }
  try {
    child.kill("SIGKILL")
  } catch {
    // Already exited.
  }
}

export const makeYtDlp = (binaryPath: string): YtDlpShape => {
  const ytdlp = create(binaryPath)

  const run = (url: string, flags: YtDlpFlags, options: YtDlpRunOptions = {}) =>
    Effect.callback<YtDlpRun, YtDlpFailed>((resume) => {
      const stdout: Array<string> = []
      let stderr = ""
      let pending = ""
      let pendingError = ""
      // reject: false is tinyspawn's option: a non-zero exit resolves and is judged below. detached puts yt-dlp at
      // the head of its own process group, so that stopping it also stops the ffmpeg it runs (see killGroup).
      const child = ytdlp.exec(url, flags as Flags, { cwd: options.cwd, reject: false, detached: true } as never)
      child.stdout?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8")
        stdout.push(text)
        if (options.onLine === undefined) return
        pending += text
        const lines = pending.split(/\r?\n|\r/)
        pending = lines.pop() ?? ""
        for (const line of lines) options.onLine(line)
      })
      child.stderr?.on("data", (chunk: Buffer) => {
        const text = chunk.toString("utf8")
        stderr = (stderr + text).slice(-STDERR_LIMIT)
        if (options.onErrorLine === undefined) return
        // curl redraws its meter after a carriage return; the tail is capped like stderr itself.
        const lines = (pendingError + text).split(/\r?\n|\r/)
        pendingError = (lines.pop() ?? "").slice(-STDERR_LIMIT)
        for (const line of lines) options.onErrorLine(line)
      })
      child.then(
        (done) => {
          if (pending !== "" && options.onLine !== undefined) options.onLine(pending)
          const exitCode = typeof done.exitCode === "number" ? done.exitCode : null
          if (exitCode === 0) resume(Effect.succeed({ stdout: stdout.join(""), stderr }))
          else resume(Effect.fail(new YtDlpFailed({ exitCode, stderr })))
        },
        (error: unknown) => resume(Effect.fail(new YtDlpFailed({ exitCode: null, stderr: String(error) })))
      )
      return Effect.sync(() => killGroup(child))
    })

  return {
    version: Effect.map(run("", { version: true }), (r) => r.stdout.trim()),
    listExtractors: Effect.map(run("", { listExtractors: true }), (r) =>
      r.stdout.split("\n").map((line) => line.trim()).filter((line) => line !== "")),
    run
  }
}

export class YtDlp extends Context.Service<YtDlp, YtDlpShape>()("mds/extractor/YtDlp") {
  static readonly config = Config.String("YT_DLP_PATH").pipe(Config.withDefault("yt-dlp"))
  static readonly layer = Layer.effect(YtDlp, Effect.map(YtDlp.config, (path) => YtDlp.of(makeYtDlp(path))))
}
