#!/usr/bin/env node
// Entry point of the `mds` command: runs one invocation with this process's arguments, streams and environment.
import { exitQuietlyWhenOutputCloses } from "@mds/shared/runtime/ClosedOutput"
import { runCli } from "./runCli.ts"

exitQuietlyWhenOutputCloses()

const code = await runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  env: process.env,
  cwd: process.cwd()
})
process.exitCode = code
