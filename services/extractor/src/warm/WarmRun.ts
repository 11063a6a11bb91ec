// One run in a child of the warm runner: asks for it over a connection of its own, then hands on its output and end.
import { connect } from "node:net"
import { Effect } from "effect"
import type { RunHandle, RunHandlers } from "../sandbox/RunStart.ts"
import { decodeRunExited, decodeRunStarted, frameReader } from "./RunFrames.ts"
import { unavailable, type WarmRunUnavailable } from "./WarmRunUnavailable.ts"

/** What the runner's child is set up with before yt-dlp starts (warm/zygote.py). */
export interface WarmRunRequest {
  /** yt-dlp's arguments, as a cold run gets them after the binary's path. */
  readonly argv: ReadonlyArray<string>
  readonly env: Readonly<Record<string, string>>
  readonly cwd: string | null
  /** The egress proxy's Unix socket the run's relay leads to; null: the run has no network at all. */
  readonly proxySocket: string | null
  /** The loopback port the run's proxy URL names, where the relay listens inside the run's namespace. */
  readonly port: number
}

/** Told to yt-dlp's stderr when its process vanished mid-run: classifyFailure reads it as transient. */
export const WARM_RUN_LOST = "ERROR: the yt-dlp process was lost mid-run (its warm runner stopped)"

/**
 * Succeeds once the runner's child took the run ("p"); fails, having started nothing, when the runner does not answer
 * within `answerWithinMs` or the connection ends first. From then on the connection is the run: stdout and stderr
 * frames go to `handlers` as they arrive, "x" is its exit; a connection that closes without "x" lost the run.
 * Closing the connection (an interrupted start, `kill`) makes the runner kill the run's whole process group.
 */
export const startWarmRun = (
  socketName: string,
  request: WarmRunRequest,
  handlers: RunHandlers,
  answerWithinMs: number
): Effect.Effect<RunHandle, WarmRunUnavailable> =>
  Effect.callback<RunHandle, WarmRunUnavailable>((resume) => {
    const socket = connect({ path: `\0${socketName}` })
    const read = frameReader()
    let pgid: number | null = null
    let exited: { readonly code: number | null } | null = null
    let closed = false
    const handle: RunHandle = {
      kill: () => {
        // Once the run ended its runner may be reaped and its pid reused: only a live group is killed.
        if (pgid !== null && !closed && exited === null) {
          try {
            process.kill(-pgid, "SIGKILL")
          } catch {
            // The group is gone already.
          }
        }
        socket.destroy()
      },
      interrupt: () => {
        if (pgid !== null && !closed && exited === null) {
          try {
            process.kill(-pgid, "SIGINT")
          } catch {
            // The group is gone already.
          }
        }
      }
    }
    const timer = setTimeout(() => {
      socket.destroy()
      resume(Effect.fail(unavailable(`the warm runner did not answer within ${answerWithinMs} ms`)))
    }, answerWithinMs)
    socket.on("connect", () => socket.write(`${JSON.stringify(request)}\n`))
    socket.on("data", (chunk: Buffer) => {
      try {
        for (const frame of read(chunk)) {
          switch (frame.tag) {
            case "p":
              pgid = decodeRunStarted(frame.payload.toString("utf8")).pgid
              clearTimeout(timer)
              resume(Effect.succeed(handle))
              break
            case "o":
              handlers.stdout(frame.payload)
              break
            case "e":
              handlers.stderr(frame.payload)
              break
            case "x":
              exited = decodeRunExited(frame.payload.toString("utf8"))
              break
          }
        }
      } catch {
        // Not the runner's protocol: nothing it says can be trusted, so the run is stopped and counts as lost.
        handle.kill()
      }
    })
    socket.on("error", () => undefined)
    socket.on("close", () => {
      closed = true
      clearTimeout(timer)
      if (pgid === null) return resume(Effect.fail(unavailable("the warm runner closed the connection before the run started")))
      handlers.end(exited === null ? { _tag: "Lost", reason: WARM_RUN_LOST } : { _tag: "Exited", code: exited.code })
    })
    return Effect.sync(() => socket.destroy())
  })
