// Integration: a media tool's run (sandbox/ConfinedTool.ts) with real processes: a deadline kills only the runs that
// wait on a remote server, never a run on the service's own files (a long recording's remux outlasts any fixed
// deadline), too much output fails the run, and a failure says why.
import { spawn } from "node:child_process"
import { chmod, mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { makeFfmpeg } from "../src/media/Ffmpeg.ts"
import { runLocalTool } from "../src/output/OutputConversion.ts"
import { runConfinedTool } from "../src/sandbox/ConfinedTool.ts"
import type { ConfinementShape } from "../src/sandbox/Confinement.ts"

/** Runs the stand-in tools as they are: nothing here reaches a network. */
const direct: ConfinementShape = {
  description: "direct (test)",
  kind: { _tag: "network-policy" },
  spawn: (command, args) => spawn(command, [...args], { detached: true })
}

let dir: string
/** A tool that takes 0.6 s and then succeeds, as ffmpeg does on a file that takes a while. */
let slowTool: string
/** A tool that writes 64 KiB to stdout. */
let chattyTool: string

const failureOf = <A, E extends { readonly message: string }>(effect: Effect.Effect<A, E>) =>
  Effect.runPromiseExit(effect).then((exit) => (Exit.isFailure(exit) ? String(exit.cause) : "succeeded"))

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "mds-confined-tool-"))
  slowTool = join(dir, "slow-tool")
  chattyTool = join(dir, "chatty-tool")
  await writeFile(slowTool, "#!/bin/sh\nsleep 0.6\necho done\n")
  await writeFile(chattyTool, "#!/bin/sh\nhead -c 65536 /dev/zero\n")
  await chmod(slowTool, 0o755)
  await chmod(chattyTool, 0o755)
})

afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe("a confined tool run", () => {
  it("gives the tool's stdout, and fails saying so when it outlasts its deadline", async () => {
    const limits = { proxyUrl: null, outputLimit: 1024, timeoutMs: null }
    expect(await Effect.runPromise(runConfinedTool(direct, slowTool, [], limits, (message) => new Error(message)))).toBe("done\n")
    const late = await failureOf(runConfinedTool(direct, slowTool, [], { ...limits, timeoutMs: 150 }, (message) => new Error(message)))
    expect(late).toContain("did not finish within 0.15 s")
  })

  it("fails a run that writes more than its output limit", async () => {
    const limits = { proxyUrl: null, outputLimit: 1024, timeoutMs: null }
    expect(await failureOf(runConfinedTool(direct, chattyTool, [], limits, (message) => new Error(message)))).toContain(
      "wrote more than 1024 bytes"
    )
  })

  it("ffmpeg's runs on remote media have a deadline; a remux of the service's own file has none", async () => {
    const ffmpeg = makeFfmpeg(slowTool, slowTool, direct, 150)
    const input = join(dir, "recording.ts")
    await writeFile(input, "")
    await Effect.runPromise(ffmpeg.remuxFile(input, join(dir, "recording.mp4"), "mp4"))
    expect(await failureOf(ffmpeg.probe("http://127.0.0.1:9/media.mp4", "http://127.0.0.1:9"))).toContain("did not finish")
  })

  it("a local conversion (or a clip's cut) runs as long as its file takes", async () => {
    expect(await Effect.runPromise(runLocalTool(direct, slowTool, []))).toBe("done\n")
  })
})
