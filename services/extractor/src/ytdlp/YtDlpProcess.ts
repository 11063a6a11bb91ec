// Runs one yt-dlp release in its sandbox, warm or cold: the run, its output and its failure, for whichever release a caller names.
import youtubeDlExec from "youtube-dl-exec"
import { Deferred, Effect, Fiber, Schema } from "effect"
import { countOne } from "@mds/shared/observability/Metrics"
import { type ConfinedSpawnOptions, type ConfinementShape, runSetup } from "../sandbox/Confinement.ts"
import type { WarmRunnerShape } from "../warm/WarmRunner.ts"
import type { WarmRunUnavailable } from "../warm/WarmRunUnavailable.ts"
import { ytDlpStarts } from "../warm/WarmStarts.ts"
import { type RunHandlers, startCold } from "../sandbox/RunStart.ts"
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
  /**
   * Extension, live recording: once this completes, yt-dlp is sent SIGINT, which ends a live download keeping what it
   * recorded (the run then ends as usual, with its file).
   */
  readonly stopWhen?: Effect.Effect<void>
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

/** The handlers that read one run's output (lines to `options`, stdout kept, a stderr tail) and the run's end. */
const collectOutput = (options: YtDlpRunOptions) => {
  const ended = Deferred.makeUnsafe<YtDlpRun, YtDlpFailed>()
  const stdout: Array<string> = []
  let stderr = ""
  let pending = ""
  let pendingError = ""
  const handlers: RunHandlers = {
    stdout: (chunk) => {
      const text = chunk.toString("utf8")
      stdout.push(text)
      if (options.onLine === undefined) return
      pending += text
      const lines = pending.split(/\r?\n|\r/)
      pending = lines.pop() ?? ""
      for (const line of lines) options.onLine(line)
    },
    stderr: (chunk) => {
      const text = chunk.toString("utf8")
      stderr = (stderr + text).slice(-STDERR_LIMIT)
      if (options.onErrorLine === undefined) return
      // curl redraws its meter after a carriage return; the tail is capped like stderr itself.
      const lines = (pendingError + text).split(/\r?\n|\r/)
      pendingError = (lines.pop() ?? "").slice(-STDERR_LIMIT)
      for (const line of lines) options.onErrorLine(line)
    },
    end: (end) => {
      if (pending !== "" && options.onLine !== undefined) options.onLine(pending)
      const result =
        end._tag === "Lost"
          ? Effect.fail(new YtDlpFailed({ exitCode: null, stderr: stderr === "" ? end.reason : `${stderr}\n${end.reason}` }))
          : end.code === 0
            ? Effect.succeed({ stdout: stdout.join(""), stderr })
            : Effect.fail(new YtDlpFailed({ exitCode: end.code, stderr }))
      Deferred.doneUnsafe(ended, result)
    }
  }
  return { handlers, ended: Deferred.await(ended) }
}

/**
 * `binaryPath` is read when each run starts: after the fleet switches releases (ytdlp/ActiveRelease) new runs use the
 * new binary while runs already going finish on the old one. With `warm`, a run starts in a child of that release's
 * warm runner whenever the runner can take it, and cold (a new confined process) otherwise, saying why in the log.
 */
export const makeYtDlp = (
  binaryPath: string | (() => string),
  confinement: ConfinementShape,
  warm?: WarmRunnerShape,
  /** YT_DLP_PLUGIN_DIRS: directories yt-dlp loads extractor plugins from (--plugin-dirs), for every run. */
  pluginDirs: ReadonlyArray<string> = []
): YtDlpShape => {
  const pathOf = typeof binaryPath === "string" ? () => binaryPath : binaryPath
  const pluginArgs = pluginDirs.flatMap((dir) => ["--plugin-dirs", dir])
  const run = (url: string, flags: YtDlpFlags, options: YtDlpRunOptions = {}) =>
    Effect.suspend(() => {
      const path = pathOf()
      const args = [...pluginArgs, ...toArgs(flags), "--", url].filter((arg) => arg !== "")
      const spawnOptions: ConfinedSpawnOptions = {
        cwd: options.cwd,
        proxyUrl: typeof flags.proxy === "string" ? flags.proxy : null,
        withoutImpersonation: options.withoutImpersonation === true
      }
      const output = collectOutput(options)
      // The run's way out and environment, whichever way it starts; a proxy that is not open fails it here.
      const setup = Effect.try({
        try: () => runSetup(path, spawnOptions),
        catch: (error) => new YtDlpFailed({ exitCode: null, stderr: String(error) })
      })
      const cold = Effect.try({
        try: () => startCold(confinement, path, args, spawnOptions, output.handlers),
        catch: (error) => new YtDlpFailed({ exitCode: null, stderr: String(error) })
      })
      const startedCold = (why: WarmRunUnavailable) =>
        (why.expected ? Effect.logDebug : Effect.logInfo)("yt-dlp run starts cold", { reason: why.reason }).pipe(
          Effect.andThen(cold),
          Effect.tap(() => countOne(ytDlpStarts, { start: "cold" }))
        )
      const start =
        warm === undefined
          ? cold
          : Effect.flatMap(setup, ({ socketPath, port, env }) =>
              warm.start(path, { argv: args, env, cwd: options.cwd ?? null, proxySocket: socketPath, port }, output.handlers).pipe(
                Effect.tap(() => countOne(ytDlpStarts, { start: "warm" })),
                Effect.catchTag("WarmRunUnavailable", startedCold)
              )
            )
      // Stopped by SIGKILL to its whole group when interrupted (canceled, timed out, over a limit), never otherwise.
      return Effect.uninterruptibleMask((restore) =>
        Effect.gen(function* () {
          const handle = yield* restore(start)
          const stopping =
            options.stopWhen === undefined
              ? null
              : yield* Effect.forkDetach(options.stopWhen.pipe(Effect.andThen(Effect.sync(() => handle.interrupt()))))
          return yield* restore(output.ended).pipe(
            Effect.onInterrupt(() => Effect.sync(() => handle.kill())),
            Effect.ensuring(stopping === null ? Effect.void : Fiber.interrupt(stopping))
          )
        })
      )
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
