// Conformance and fuzzing in one schemathesis run against the served OpenAPI document: over 2,000 generated requests,
// valid and invalid, with every check (no 5xx, statuses, content types, headers, bodies, rejection of invalid data,
// acceptance of valid data); the expected statuses of those checks are in schemathesis.toml.
import { execFile } from "node:child_process"
import { access, mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { REPO_ROOT, startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"

const MIN_REQUESTS = 2_000
/**
 * Per operation in the fuzzing phase; the coverage phase's cases (about 500) do not depend on it. With this seed, 80
 * still makes over 2,000 requests over the 20-odd operations, at about 60 % of the CPU time 160 took (62 s against
 * 111 s for the whole file on a loaded machine): schemathesis spends most of it generating cases, on one CPU.
 */
const MAX_EXAMPLES = 80

/** The pinned schemathesis that deploy/local/setup.sh installs into .tools/venv-test (MDS_SCHEMATHESIS overrides it). */
const schemathesisPath = process.env["MDS_SCHEMATHESIS"] ?? join(REPO_ROOT, ".tools", "venv-test", "bin", "schemathesis")

let stack: ServiceStack
let key: string
let reportDir: string

beforeAll(async () => {
  await access(schemathesisPath).catch(() => {
    throw new Error(`schemathesis not found at ${schemathesisPath}: run the tests through npm test (deploy/local/setup.sh installs it)`)
  })
  stack = await startServiceStack({
    env: {
      // Nothing is reachable (no EGRESS_ALLOW entries): generated URLs, names and IP literals alike, never leave the
      // machine, not even as a DNS query; resolve and download-by-URL answer 422 url_not_allowed.
      EGRESS_ALLOW_ONLY: "true",
      // The fuzzer sends thousands of requests with one key; the limit is tested elsewhere.
      API_RATE_LIMIT_PER_MINUTE: "0",
      // So are its invalid keys: the failed-authentication throttle is tested in services/gateway/test.
      API_KEY_FAILURES_PER_MINUTE: "0"
    }
  })
  key = (await stack.provisionKey()).key
  reportDir = await mkdtemp(join(tmpdir(), "mds-fuzz-"))
})

afterAll(async () => {
  await stack?.close()
  if (reportDir) await rm(reportDir, { recursive: true, force: true })
})

interface RunResult {
  readonly code: number | null
  readonly output: string
}

const runSchemathesis = (args: ReadonlyArray<string>) =>
  new Promise<RunResult>((resolve) => {
    execFile(schemathesisPath, [...args], { cwd: reportDir, maxBuffer: 64 * 1024 * 1024, timeout: 600_000 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === "number" ? error.code : null
      resolve({ code, output: `${stdout}\n${stderr}` })
    })
  })

/** Counts the requests schemathesis recorded in its NDJSON event stream (one ScenarioFinished per case). */
const countRequests = (ndjson: string): number =>
  ndjson
    .split("\n")
    .filter((line) => line.trim() !== "")
    .reduce((total, line) => {
      const event = JSON.parse(line) as Record<string, any>
      const finished = event["ScenarioFinished"]
      const interactions = finished?.recorder?.interactions
      return total + (interactions === undefined ? 0 : Object.keys(interactions).length)
    }, 0)

describe("schemathesis against /v1/openapi.json", () => {
  it(`sends at least ${MIN_REQUESTS} generated valid and invalid requests: no 5xx, every operation conforms`, async () => {
    const ndjsonPath = join(reportDir, "events.ndjson")
    const { code, output } = await runSchemathesis([
      "--config-file",
      join(REPO_ROOT, "test", "e2e", "schemathesis.toml"),
      "run",
      `${stack.baseUrl}/openapi.json`,
      "--header",
      `X-API-Key: ${key}`,
      // Keep the key: generated Authorization headers would make most keyed requests a 401 and test nothing behind it.
      "--generation-with-security-parameters",
      "false",
      // One run for conformance and fuzzing: two runs generated the cases twice (44 s and 111 s of CPU; this run, 76 s).
      "--checks",
      "all",
      "--phases",
      "examples,coverage,fuzzing",
      "--max-examples",
      String(MAX_EXAMPLES),
      "--seed",
      "20261121",
      // One worker: hypothesis parses lambdas with ast.parse, which CPython 3.11 cannot do on two threads at once
      // ("AST constructor recursion depth mismatch").
      "--workers",
      "1",
      "--request-timeout",
      "30",
      "--no-shrink",
      "--generation-database",
      "none",
      "--report",
      "ndjson",
      "--report-ndjson-path",
      ndjsonPath,
      "--no-color",
      // The project's job stream stays open while the client listens: every valid request to it would wait out the
      // request timeout (it made the run exceed its 10 minutes). Its refusals of bad input are tested in
      // services/gateway/test/bad-input.int.spec.ts, its stream in project-job-events.int.spec.ts.
      "--exclude-path",
      "/v1/jobs/events"
    ])
    const requests = countRequests(await readFile(ndjsonPath, "utf8"))
    const tail = output.split("\n").slice(-120).join("\n")
    expect(code, `schemathesis exited ${code}\n${tail}\n${stack.logs()}`).toBe(0)
    expect(requests, tail).toBeGreaterThanOrEqual(MIN_REQUESTS)
    // The stack is still healthy afterwards.
    const health = await fetch(`${stack.baseUrl}/health`)
    expect(health.status).toBe(200)
  }, 600_000)
})
