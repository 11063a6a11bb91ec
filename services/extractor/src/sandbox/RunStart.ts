// A started yt-dlp run as its caller sees it, whichever way it started (cold: a confined process; warm: a child the
// warm runner forked): its output as it arrives, how it ended, and the one way to stop it.
import { type ConfinedSpawnOptions, type ConfinementShape, killRunTree } from "./Confinement.ts"

/** `Exited` with null: killed by a signal. `Lost`: the run's process vanished without an exit status (why, for stderr). */
export type RunEnd = { readonly _tag: "Exited"; readonly code: number | null } | { readonly _tag: "Lost"; readonly reason: string }

export interface RunHandlers {
  readonly stdout: (chunk: Buffer) => void
  readonly stderr: (chunk: Buffer) => void
  /** Called once, after the last output. */
  readonly end: (end: RunEnd) => void
}

export interface RunHandle {
  /** SIGKILL to the run's whole process group: yt-dlp and everything it started. */
  kill(): void
  /**
   * SIGINT to the run's whole process group: yt-dlp stops a live download and keeps (finalizes) what it has, then
   * exits as usual (the launcher or warm runner that waits for it ignores SIGINT). For a live recording's stop only.
   */
  interrupt(): void
}

/** Starts `command` confined, as every cold run starts; throws what the confinement's spawn throws. */
export const startCold = (
  confinement: ConfinementShape,
  command: string,
  args: ReadonlyArray<string>,
  options: ConfinedSpawnOptions,
  handlers: RunHandlers
): RunHandle => {
  const child = confinement.spawn(command, args, options)
  let ended = false
  const end = (value: RunEnd) => {
    if (ended) return
    ended = true
    handlers.end(value)
  }
  child.stdout.on("data", handlers.stdout)
  child.stderr.on("data", handlers.stderr)
  child.stdin.end()
  child.once("error", (error) => end({ _tag: "Lost", reason: String(error) }))
  child.once("close", (code) => end({ _tag: "Exited", code }))
  return {
    kill: () => killRunTree(child),
    interrupt: () => {
      if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return
      try {
        process.kill(-child.pid, "SIGINT")
      } catch {
        // The group is gone already.
      }
    }
  }
}
