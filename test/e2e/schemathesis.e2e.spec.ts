// Conformance: Schemathesis (pinned in .tools/venv-test) fuzzes the running stack from its own /v1/openapi.json and
// checks every answer against the document: statuses, content types, headers, bodies, and rejection of invalid data.
import { spawn } from "node:child_process"
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REPO_ROOT, startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"

let stack: ServiceStack
let key: string
/** Schemathesis keeps a cache and reports in its working directory: not in the repository. */
let workDir: string

beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "mds-schemathesis-"))
  // Invalid keys must be answered 401 however often the fuzzer sends them (the failed-authentication throttle, which
  // answers 429 past its limit, is tested in services/gateway/test).
  stack = await startServiceStack({ env: { API_KEY_FAILURES_PER_MINUTE: "0" } })
  key = (await stack.provisionKey()).key
  // Generated URLs name public hosts: without an extractor nothing fetches them (resolves answer 503, downloads
  // stay queued). The extractor ran long enough to publish the platform catalog.
  await stack.stopService("extractor")
})
afterAll(async () => {
  await stack?.close()
  if (workDir !== undefined) await rm(workDir, { recursive: true, force: true })
})

const schemathesis = () => process.env["MDS_SCHEMATHESIS"] ?? join(REPO_ROOT, ".tools", "venv-test", "bin", "schemathesis")

const run = (args: ReadonlyArray<string>) =>
  new Promise<{ code: number | null; output: string }>((resolve, reject) => {
    const child = spawn(schemathesis(), [...args], {
      cwd: workDir,
      env: { ...process.env, NO_COLOR: "1", SCHEMATHESIS_TELEMETRY: "false" },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    child.stdout.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on("data", (chunk: Buffer) => (output += chunk.toString()))
    child.on("error", reject)
    child.on("close", (code) => resolve({ code, output }))
  })

describe("schemathesis", () => {
  it("every operation of /v1/openapi.json conforms under generated valid and invalid requests", async () => {
    const origin = stack.baseUrl.replace(/\/v1$/, "")
    const result = await run([
      "--config-file",
      join(REPO_ROOT, "test", "e2e", "schemathesis.toml"),
      "run",
      `${origin}/v1/openapi.json`,
      "--url",
      origin,
      "--header",
      `X-API-Key: ${key}`,
      "--checks",
      "all",
      "--phases",
      "examples,coverage,fuzzing",
      "--max-examples",
      "25",
      "--seed",
      process.env["MDS_SCHEMATHESIS_SEED"] ?? "20261121",
      "--workers",
      "1",
      "--request-timeout",
      "30",
      // Files and SSE streams are not JSON; their shape is covered by the other suites. The project's job stream
      // stays open while the client listens, so every valid request would wait out the request timeout.
      "--exclude-path",
      "/v1/jobs/{jobId}/events",
      "--exclude-path",
      "/v1/jobs/events"
    ])
    expect(result.code, `${result.output}\n${stack.logs()}`).toBe(0)
    expect(result.output).toMatch(/passed/i)
  }, 600_000)
})
