// One warm runner process: a release's python that imported yt-dlp (zygote.py) and forks a confined child per run.
import { spawn } from "node:child_process"
import { randomBytes } from "node:crypto"
import { join } from "node:path"
import { Effect, Schema } from "effect"
import { childEnvironment } from "../sandbox/ChildEnvironment.ts"
import type { ConfinementKind } from "../sandbox/Confinement.ts"
import type { RunHandle, RunHandlers } from "../sandbox/RunStart.ts"
import { startWarmRun, type WarmRunRequest } from "./WarmRun.ts"
import { unavailable, type WarmRunUnavailable } from "./WarmRunUnavailable.ts"

const SCRIPT = join(import.meta.dirname, "zygote.py")
const STDERR_KEPT = 4096
/** A child answers within milliseconds; a runner that does not within this is skipped and the run starts cold. */
const ANSWER_WITHIN_MS = 1000

export class ZygoteFailed extends Schema.TaggedError<ZygoteFailed>()("ZygoteFailed", {
  message: Schema.String
}) {}

const ZygoteReady = Schema.Struct({ ready: Schema.Literal(true), version: Schema.String, pid: Schema.Int })
const decodeReady = Schema.decodeUnknownEffect(Schema.fromJsonString(ZygoteReady))

export interface ZygoteExit {
  readonly code: number | null
  readonly signal: string | null
  /** The end of what it wrote to stderr (a traceback, when it crashed). */
  readonly stderr: string
}

export interface Zygote {
  readonly pid: number
  /** The yt-dlp version it imported. */
  readonly version: string
  /** Starts a run in a child forked for it; counted until it ends. */
  start(request: WarmRunRequest, handlers: RunHandlers): Effect.Effect<RunHandle, WarmRunUnavailable>
  /** Completes when the process has ended, however. */
  readonly exited: Effect.Effect<ZygoteExit>
  /** Takes no more runs, and stops once those it has ended (they finish on its release: its children die with it). */
  retire(): void
  /** Stops now, and its runs with it. */
  stop(): void
}

/** The zygote's variant argument: how its children confine themselves, as confine.py confines a cold run. */
const variantOf = (kind: ConfinementKind) => (kind._tag === "namespace" ? kind.variant : "none")

/**
 * Starts the runner on `python` (the release's own interpreter, with the yt-dlp environment a cold run gets and no
 * proxy) and waits until it has imported yt-dlp and listens. Its socket is an abstract one: it has no file, it cannot
 * be reached from a run's network namespace, and the runner serves only this process (it checks the peer's pid).
 */
export const startZygote = (python: string, kind: ConfinementKind, readyWithinMs: number): Effect.Effect<Zygote, ZygoteFailed> =>
  Effect.gen(function* () {
    const socketName = `mds-warm-${process.pid}-${randomBytes(8).toString("hex")}`
    const child = spawn(python, ["-I", SCRIPT, variantOf(kind), socketName], {
      env: childEnvironment(process.env, null),
      stdio: ["pipe", "pipe", "pipe"],
      // Its own process group: a signal meant for the extractor's group (a terminal's Ctrl-C) is not its business.
      detached: true
    })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => {
      stderr = (stderr + chunk.toString("utf8")).slice(-STDERR_KEPT)
    })
    const exit = new Promise<ZygoteExit>((resolve) => {
      child.once("error", (error) => resolve({ code: null, signal: null, stderr: String(error) }))
      child.once("exit", (code, signal) => resolve({ code, signal, stderr }))
    })
    const kill = () => {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL")
    }
    const line = yield* Effect.callback<string, ZygoteFailed>((resume) => {
      let pending = ""
      child.stdout.on("data", (chunk: Buffer) => {
        pending += chunk.toString("utf8")
        const end = pending.indexOf("\n")
        if (end >= 0) resume(Effect.succeed(pending.slice(0, end)))
      })
      void exit.then((ended) => resume(Effect.fail(new ZygoteFailed({ message: `it exited before it listened (${describeExit(ended)})` }))))
    }).pipe(
      Effect.timeoutOrElse({
        duration: readyWithinMs,
        orElse: () => Effect.fail(new ZygoteFailed({ message: `it did not listen within ${readyWithinMs / 1000} s` }))
      }),
      Effect.onError(() => Effect.sync(kill))
    )
    const ready = yield* decodeReady(line).pipe(
      Effect.mapError(() => new ZygoteFailed({ message: `it announced itself unreadably: ${line.slice(0, 200)}` })),
      Effect.tapError(() => Effect.sync(kill))
    )

    let running = 0
    let retired = false
    const start = (request: WarmRunRequest, handlers: RunHandlers) =>
      Effect.suspend(() => {
        if (retired) return Effect.fail(unavailable("the warm runner was replaced"))
        running++
        const ended = () => {
          running--
          if (retired && running === 0) kill()
        }
        const counted: RunHandlers = {
          ...handlers,
          end: (end) => {
            ended()
            handlers.end(end)
          }
        }
        return startWarmRun(socketName, request, counted, ANSWER_WITHIN_MS).pipe(Effect.onError(() => Effect.sync(ended)))
      })
    return {
      pid: ready.pid,
      version: ready.version,
      start,
      exited: Effect.promise(() => exit),
      retire: () => {
        retired = true
        if (running === 0) kill()
      },
      stop: () => {
        retired = true
        kill()
      }
    } satisfies Zygote
  })

export const describeExit = (exit: ZygoteExit) =>
  `${exit.signal === null ? `exit code ${exit.code}` : `signal ${exit.signal}`}${exit.stderr.trim() === "" ? "" : `: ${exit.stderr.trim().split("\n").slice(-3).join(" ")}`}`
