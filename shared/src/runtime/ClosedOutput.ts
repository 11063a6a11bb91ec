// A command-line tool whose reader went away (`mds platforms | head -1`) stops quietly, as Unix tools do.
import type { Writable } from "node:stream"

/**
 * Node ignores SIGPIPE, so a write to a closed pipe surfaces as an EPIPE error event, which unhandled crashes the
 * process with a stack trace. A tool whose output nobody reads any more has nothing left to do: it exits at once with
 * the status a shell gives a process killed by SIGPIPE (128 + 13), without a word on stderr. Any other error stays loud.
 */
export const exitQuietlyWhenOutputCloses = (output: Writable = process.stdout): void => {
  output.on("error", (error: NodeJS.ErrnoException) => {
    if (error.code === "EPIPE") process.exit(141)
    throw error
  })
}
