// The extractor's warm runner: one zygote for the active yt-dlp release, replaced when the release changes and
// restarted when it dies; runs it cannot take start cold.
import { Config, Context, Duration, Effect, Fiber, Layer } from "effect"
import { YtDlpPath } from "../ExtractorConfig.ts"
import { releasePython } from "../sandbox/ReleasePython.ts"
import { Confinement } from "../sandbox/Confinement.ts"
import type { RunHandle, RunHandlers } from "../sandbox/RunStart.ts"
import type { WarmRunRequest } from "./WarmRun.ts"
import { unavailable, type WarmRunUnavailable } from "./WarmRunUnavailable.ts"
import { describeExit, startZygote, type Zygote } from "./Zygote.ts"

/** Importing yt-dlp takes well under a second; a loaded machine may take several. */
const READY_WITHIN_MS = 60_000
// Log lines here never say "ready": the test and benchmark stacks take a service's first such line as its start.
/** Restarts of a runner that keeps dying back off from 1 s to a minute; one that served a minute starts afresh. */
const RESTART_FIRST_MS = 1000
const RESTART_MAX_MS = 60_000
const HEALTHY_AFTER_MS = 60_000

export interface WarmRunnerStatus {
  /** The release (its yt-dlp path) the runner is for. */
  readonly path: string | null
  /** The runner taking runs now, or why none does. */
  readonly ready: { readonly pid: number; readonly version: string } | { readonly reason: string }
}

export interface WarmRunnerShape {
  /**
   * Starts a yt-dlp run of the release at `path` in a child of its runner, set up as `request` says (the arguments,
   * environment, directory and proxy a cold run of it gets). Fails, having started nothing, when the runner cannot take it (off, starting, restarting, not
   * for this release yet): the caller then starts the run cold.
   */
  start(path: string, request: WarmRunRequest, handlers: RunHandlers): Effect.Effect<RunHandle, WarmRunUnavailable>
  status(): WarmRunnerStatus
}

/** One release's runner slot: the zygote taking runs, or why there is none; and the fiber that keeps it running. */
interface Slot {
  readonly path: string
  zygote: Zygote | null
  reason: string
  fiber: Fiber.Fiber<void> | null
}

export class WarmRunner extends Context.Service<WarmRunner, WarmRunnerShape>()("mds/extractor/WarmRunner") {
  static readonly config = Config.Literals(["on", "off"], "YT_DLP_WARM_RUNNER").pipe(Config.withDefault("on" as const))

  static readonly layer = Layer.effect(
    WarmRunner,
    Effect.gen(function* () {
      const setting = yield* WarmRunner.config
      const { kind } = yield* Confinement
      // The release YT_DLP_PATH names is the one every extractor starts with; a switch replaces the runner (start).
      const firstPath = yield* YtDlpPath
      if (setting === "off") {
        yield* Effect.logInfo("YT_DLP_WARM_RUNNER=off: every yt-dlp run starts cold")
        return WarmRunner.of({
          start: () => Effect.fail(unavailable("YT_DLP_WARM_RUNNER=off", true)),
          status: () => ({ path: null, ready: { reason: "YT_DLP_WARM_RUNNER=off" } })
        })
      }
      const scope = yield* Effect.scope

      const newSlot = (path: string, reason: string): Slot => ({ path, zygote: null, reason, fiber: null })
      /** Every runner process alive, retired ones finishing their runs included: all stop with the extractor. */
      const live = new Set<Zygote>()
      yield* Effect.addFinalizer(() => Effect.sync(() => live.forEach((zygote) => zygote.stop())))
      let current = newSlot(firstPath, "the warm runner is starting")

      /** Keeps the slot's zygote running until interrupted (a release change, shutdown), then retires it. */
      const keepRunning = (slot: Slot) =>
        Effect.gen(function* () {
          const python = yield* releasePython(slot.path)
          if (python === null) {
            slot.reason = `no python found for the release at ${slot.path} (the warm runner needs a pip-installed yt-dlp named by its path)`
            return yield* Effect.logWarning("no warm runner for this yt-dlp release; its runs start cold", { path: slot.path })
          }
          let failures = 0
          while (current === slot) {
            const started = yield* Effect.result(startZygote(python, kind, READY_WITHIN_MS))
            if (started._tag === "Success") {
              const zygote = started.success
              live.add(zygote)
              yield* Effect.forkIn(
                Effect.andThen(
                  zygote.exited,
                  Effect.sync(() => live.delete(zygote))
                ),
                scope
              )
              slot.zygote = zygote
              yield* Effect.logInfo("warm yt-dlp runner up: new runs fork from it", { version: zygote.version, pid: zygote.pid })
              const since = Date.now()
              const exit = yield* zygote.exited
              slot.zygote = null
              slot.reason = "the warm runner is restarting"
              if (Date.now() - since >= HEALTHY_AFTER_MS) failures = 0
              yield* Effect.logWarning("warm yt-dlp runner stopped; restarting it", { pid: zygote.pid, exit: describeExit(exit) })
            } else {
              slot.reason = `the warm runner could not start: ${started.failure.message}`
              yield* Effect.logWarning("warm yt-dlp runner did not start; trying again", { message: started.failure.message })
            }
            const delay = Math.min(RESTART_MAX_MS, RESTART_FIRST_MS * 2 ** failures)
            failures++
            yield* Effect.sleep(Duration.millis(delay))
          }
        }).pipe(Effect.ensuring(Effect.sync(() => slot.zygote?.retire())))

      /** Runs `next` from now on; `previous`'s runner finishes the runs it has, then stops. */
      const replace = (previous: Slot | null, next: Slot) =>
        Effect.gen(function* () {
          next.fiber = yield* Effect.forkIn(keepRunning(next), scope)
          if (previous?.fiber != null) yield* Fiber.interrupt(previous.fiber)
        })

      yield* replace(null, current)

      const start = (path: string, request: WarmRunRequest, handlers: RunHandlers) =>
        Effect.suspend(() => {
          const slot = current
          if (slot.path !== path) {
            // The fleet switched releases: a runner of the new one replaces this one; new runs start cold meanwhile.
            const next = newSlot(path, "the warm runner of the new release is starting")
            current = next
            return replace(slot, next).pipe(Effect.andThen(Effect.fail(unavailable(next.reason))))
          }
          if (slot.zygote === null) return Effect.fail(unavailable(slot.reason))
          return slot.zygote.start(request, handlers)
        })

      return WarmRunner.of({
        start,
        status: () => ({
          path: current.path,
          ready: current.zygote === null ? { reason: current.reason } : { pid: current.zygote.pid, version: current.zygote.version }
        })
      })
    })
  )
}
