// The admin CLI as a real process: exact stdout, non-zero exits with stderr, and keys that work (then stop working) at the gateway.
import { spawn } from "node:child_process"
import { join } from "node:path"
import { hashSecret, keyIdFromHash } from "@mds/shared/keys/ApiKeySecret"
import { loadProject, loadUser } from "../src/accounts/AccountCommands.ts"
import { userIdFromEmail } from "@mds/shared/ids/UserId"
import { verifyPassword } from "@mds/shared/keys/PasswordHash"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../../../test/support/Eventually.ts"
import { type Harness, PEPPER, startHarness } from "./GatewayHarness.ts"

let h: Harness

beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => {
  await h?.close()
})

const CLI = join(import.meta.dirname, "..", "src", "cli", "main.ts")

const cli = (args: ReadonlyArray<string>, stdin?: string) =>
  new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      env: { PATH: process.env["PATH"] ?? "", NATS_URL: h.nats.url, API_KEY_PEPPER: PEPPER },
      stdio: [stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"]
    })
    if (stdin !== undefined) child.stdin?.end(stdin)
    let stdout = ""
    let stderr = ""
    child.stdout?.on("data", (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr?.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.once("error", reject)
    child.once("close", (code) => resolve({ code, stdout, stderr }))
  })

const jobsStatus = async (key: string) =>
  await h.gateway.app.inject({ method: "GET", url: "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa", headers: { "x-api-key": key } })

const waitForStatus = (key: string, status: number) =>
  eventually(
    () => jobsStatus(key),
    (response) => response.statusCode === status,
    `HTTP ${status} for the key`
  )

describe("admin CLI", () => {
  it("creates a project and a key, prints each alone on stdout; the key authenticates until revoked", async () => {
    const project = await cli(["project", "create", "Acme"])
    expect(project.code, project.stderr).toBe(0)
    expect(project.stdout).toMatch(/^prj_[a-z2-7]{24}\n$/)
    const projectId = project.stdout.trim()

    const created = await cli(["key", "create", "--project", projectId, "--name", "ci", "--scopes", "media:resolve,media:download"])
    expect(created.code, created.stderr).toBe(0)
    expect(created.stdout).toMatch(/^svc_live_[0-9A-Za-z]{40}\n$/)
    const key = created.stdout.trim()

    const accepted = await jobsStatus(key)
    expect(accepted.statusCode, accepted.body).toBe(404)
    expect(accepted.json().error.code).toBe("job_not_found")

    const revoked = await cli(["key", "revoke", key])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect(revoked.stdout).toBe("")
    const refused = await waitForStatus(key, 401)
    expect(refused.json().error.code).toBe("revoked_api_key")
  })

  it("creates test keys and revokes by key id", async () => {
    const projectId = (await cli(["project", "create", "Sandbox"])).stdout.trim()
    const created = await cli(["key", "create", "--project", projectId, "--name", "dev", "--scopes", "media:resolve", "--env", "test"])
    expect(created.stdout).toMatch(/^svc_test_[0-9A-Za-z]{40}\n$/)
    const key = created.stdout.trim()
    expect((await jobsStatus(key)).statusCode).toBe(404)
    const keyId = keyIdFromHash(hashSecret(PEPPER, key))
    const revoked = await cli(["key", "revoke", keyId])
    expect(revoked.code, revoked.stderr).toBe(0)
    expect((await waitForStatus(key, 401)).json().error.code).toBe("revoked_api_key")
  })

  it("fails with exit 1, a message on stderr and nothing on stdout for unknown projects, keys and bad arguments", async () => {
    const unknownProject = await cli([
      "key",
      "create",
      "--project",
      "prj_aaaaaaaaaaaaaaaaaaaaaaaa",
      "--name",
      "x",
      "--scopes",
      "media:resolve"
    ])
    expect(unknownProject.code).toBe(1)
    expect(unknownProject.stdout).toBe("")
    expect(unknownProject.stderr).toContain("prj_aaaaaaaaaaaaaaaaaaaaaaaa")

    const unknownKey = await cli(["key", "revoke", "key_000000000000000000000000"])
    expect(unknownKey.code).toBe(1)
    expect(unknownKey.stdout).toBe("")

    const badScope = await cli(["key", "create", "--project", "prj_aaaaaaaaaaaaaaaaaaaaaaaa", "--name", "x", "--scopes", "admin"])
    expect(badScope.code).toBe(1)
    expect(badScope.stdout).toBe("")
    expect(badScope.stderr).toContain("scopes")

    const nothing = await cli([])
    expect(nothing.code).toBe(1)
    expect(nothing.stdout).toBe("")
    expect(nothing.stderr).toContain("usage")
  })

  it("creates dashboard users: a generated password printed once, or one read from stdin; emails are unique", async () => {
    const generated = await cli(["user", "create", "Ann@Example.org"])
    expect(generated.code, generated.stderr).toBe(0)
    expect(generated.stdout).toMatch(/^[A-Za-z2-9]{20}\n$/)
    const ann = await h.gateway.run(loadUser("ann@example.org"))
    expect(ann.user?.email).toBe("ann@example.org")
    expect(await verifyPassword(generated.stdout.trim(), ann.passwordHash ?? "")).toBe(true)

    const fromStdin = await cli(["user", "create", "bob@example.org", "--password-stdin"], "a long enough password\n")
    expect(fromStdin.code, fromStdin.stderr).toBe(0)
    expect(fromStdin.stdout).toBe(`${userIdFromEmail("bob@example.org")}\n`)
    expect(fromStdin.stdout).not.toContain("password")

    const again = await cli(["user", "create", "ANN@example.org"])
    expect(again.code).toBe(1)
    expect(again.stdout).toBe("")
    expect(again.stderr).toContain("already exists")

    const short = await cli(["user", "create", "cid@example.org", "--password-stdin"], "short\n")
    expect(short.code).toBe(1)
    expect(short.stderr).toContain("at least 12 characters")

    const reset = await cli(["user", "set-password", "bob@example.org", "--password-stdin"], "another long password\n")
    expect(reset.code, reset.stderr).toBe(0)
    const bob = await h.gateway.run(loadUser("bob@example.org"))
    expect(await verifyPassword("another long password", bob.passwordHash ?? "")).toBe(true)
  })

  it("adds an existing user to a project made with the CLI, so it shows in their dashboard", async () => {
    const projectId = (await cli(["project", "create", "Shared"])).stdout.trim()
    await cli(["user", "create", "dan@example.org"])
    const added = await cli(["project", "add-member", projectId, "dan@example.org"])
    expect(added.code, added.stderr).toBe(0)
    const project = await h.gateway.run(loadProject(projectId))
    expect(project.members).toEqual([{ userId: userIdFromEmail("dan@example.org"), email: "dan@example.org" }])

    const unknown = await cli(["project", "add-member", projectId, "nobody@example.org"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("nobody@example.org")
  })

  it("sets a project's quotas (sizes for people, unlimited, default); refuses what is not a size or a count", async () => {
    const projectId = (await cli(["project", "create", "Limited"])).stdout.trim()
    const set = await cli(["project", "quota", projectId, "--bytes-per-month", "50GB", "--jobs-per-day", "500", "--subscriptions", "7"])
    expect(set.code, set.stderr).toBe(0)
    expect(set.stdout).toBe("")
    expect((await h.gateway.run(loadProject(projectId))).quotas).toEqual({
      jobsPerDay: 500,
      bytesPerMonth: 50 * 1024 ** 3,
      subscriptions: 7
    })
    const lifted = await cli([
      "project",
      "quota",
      projectId,
      "--jobs-per-day=unlimited",
      "--bytes-per-month",
      "default",
      "--subscriptions",
      "default"
    ])
    expect(lifted.code, lifted.stderr).toBe(0)
    expect((await h.gateway.run(loadProject(projectId))).quotas).toEqual({
      jobsPerDay: "unlimited",
      bytesPerMonth: "default",
      subscriptions: "default"
    })

    const badSize = await cli(["project", "quota", projectId, "--bytes-per-month", "5 parsecs"])
    expect(badSize.code).toBe(1)
    expect(badSize.stderr).toContain('"5 parsecs" is not a size')
    const badCount = await cli(["project", "quota", projectId, "--jobs-per-day", "lots"])
    expect(badCount.code).toBe(1)
    expect(badCount.stderr).toContain('"lots" is not a whole number')
    const nothing = await cli(["project", "quota", projectId])
    expect(nothing.code).toBe(1)
    const unknown = await cli(["project", "quota", "prj_aaaaaaaaaaaaaaaaaaaaaaaa", "--jobs-per-day", "1"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain("prj_aaaaaaaaaaaaaaaaaaaaaaaa")
  })
})
