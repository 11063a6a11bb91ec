// The dashboard over HTTP (in process): sign-in, sessions, CSRF, security headers, project isolation, keys and members.
import { Effect } from "effect"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { jobView } from "../../../../test/support/JobViews.ts"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAdminCommand } from "../../src/cli/runAdminCommand.ts"
import { DASHBOARD_SECURITY_HEADERS } from "../../src/dashboard/DashboardHttp.ts"
import type { DashboardClient } from "../../../../test/support/DashboardClient.ts"
import { eventually } from "../../../../test/support/Eventually.ts"
import { type DashboardHarness, startDashboardHarness } from "./DashboardHarness.ts"

const ADMIN = { email: "admin@example.org", password: "bootstrap-password-1" }
const BOB = { email: "bob@example.org", password: "bobs-password-123" }

let h: DashboardHarness
let admin: DashboardClient

const createUser = (email: string, password: string) =>
  h.gateway.run(runAdminCommand({ _tag: "CreateUser", email, passwordFromStdin: true }, { readStdin: Effect.succeed(`${password}\n`) }))

/** "accepted" when /v1 takes the key (an unknown job is then 404 job_not_found), else the auth error code. */
const v1Auth = async (key: string) => {
  const response = await h.gateway.app.inject({
    method: "GET",
    url: "/v1/jobs/job_aaaaaaaaaaaaaaaaaaaaaaaa",
    headers: { "x-api-key": key }
  })
  const code: string = response.json().error.code
  return code === "job_not_found" ? "accepted" : code
}

const projectIdIn = (html: string) => /\/dashboard\/projects\/(prj_[a-z2-7]{24})\//.exec(html)?.[1] ?? ""
const secretIn = (html: string) => /id="secret"[^>]*value="(svc_(?:live|test)_[0-9A-Za-z]{40})"/.exec(html)?.[1] ?? ""
const keyIdsIn = (html: string) => [...html.matchAll(/\/keys\/(key_[a-f0-9]{24})\/revoke/g)].map((m) => m[1])

beforeAll(async () => {
  // The first admin comes from the environment, as an operator may configure it.
  h = await startDashboardHarness({ DASHBOARD_ADMIN_EMAIL: ADMIN.email, DASHBOARD_ADMIN_PASSWORD: ADMIN.password })
  await createUser(BOB.email, BOB.password)
  admin = h.client()
  expect((await admin.signIn(ADMIN.email, ADMIN.password)).body).toContain("<h1>Projects</h1>")
})

afterAll(async () => {
  await h?.close()
})

describe("dashboard sign-in and sessions", () => {
  it("the same answer for a wrong password and an unknown email; no session either way", async () => {
    for (const [email, password] of [
      [ADMIN.email, "wrong-password-x"],
      ["nobody@example.org", ADMIN.password]
    ] as const) {
      const client = h.client()
      const response = await client.signIn(email, password)
      expect(response.status).toBe(401)
      expect(response.body).toContain("The email or the password is wrong.")
      expect([...client.cookies.keys()]).not.toContain("mds_session")
    }
  })

  it("session cookies are HttpOnly, SameSite=Strict, and not Secure over plain http", async () => {
    const login = await h.transport({ method: "GET", path: "/dashboard/login", headers: {} })
    const client = h.client()
    await client.get("/dashboard/login")
    const response = await h.transport({
      method: "POST",
      path: "/dashboard/login",
      headers: {
        "content-type": "application/x-www-form-urlencoded",
        cookie: `mds_login=${client.cookies.get("mds_login")}`
      },
      body: new URLSearchParams({ _csrf: client.csrf(), email: BOB.email, password: BOB.password }).toString()
    })
    expect(response.status).toBe(303)
    const session = response.headers.getSetCookie().find((c) => c.startsWith("mds_session="))
    expect(session).toMatch(/; HttpOnly; SameSite=Strict$/)
    expect(login.headers.getSetCookie()[0]).toMatch(/^mds_login=.+; HttpOnly; SameSite=Strict$/)
  })

  it("signing in without the sign-in page's token is refused (login CSRF)", async () => {
    const client = h.client()
    const response = await client.post("/dashboard/login", { email: ADMIN.email, password: ADMIN.password, _csrf: "forged" })
    expect(response.status).toBe(403)
  })

  it("a planted pair of equal tokens (cookie and field) that this gateway did not sign is refused", async () => {
    const planted = "x".repeat(43)
    const response = await h.transport({
      method: "POST",
      path: "/dashboard/login",
      headers: { "content-type": "application/x-www-form-urlencoded", cookie: `mds_login=${planted}` },
      body: new URLSearchParams({ _csrf: planted, email: ADMIN.email, password: ADMIN.password }).toString()
    })
    expect(response.status).toBe(403)
    expect(response.headers.getSetCookie().some((c) => c.startsWith("mds_session="))).toBe(false)
  })

  it("after 10 failed sign-ins an account is throttled: 429 with Retry-After, even with the right password; others are not", async () => {
    const carol = { email: "carol@example.org", password: "carol-password-123" }
    await createUser(carol.email, carol.password)
    for (let i = 0; i < 10; i++) expect((await h.client().signIn(carol.email, `wrong-password-${i}`)).status).toBe(401)
    const client = h.client()
    const throttled = await client.signIn(carol.email, carol.password)
    expect(throttled.status).toBe(429)
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(throttled.body).toContain("Too many failed sign-ins")
    expect([...client.cookies.keys()]).not.toContain("mds_session")
    expect((await h.client().signIn(BOB.email, BOB.password)).status).not.toBe(429)
  })

  it("signing out ends the session on the server: the old cookie no longer works", async () => {
    const client = h.client()
    await client.signIn(BOB.email, BOB.password)
    const cookie = `mds_session=${client.cookies.get("mds_session")}`
    expect((await client.post("/dashboard/logout", {})).body).toContain("Sign in")
    const replay = await h.transport({ method: "GET", path: "/dashboard", headers: { cookie } })
    expect(replay.status).toBe(303)
    expect(replay.headers.get("location")).toBe("/dashboard/login")
  })

  it("pages carry the security headers; the Jobs tab's event stream answers 401 without a session", async () => {
    const page = await admin.get("/dashboard")
    for (const [name, value] of Object.entries(DASHBOARD_SECURITY_HEADERS)) expect(page.headers.get(name)).toBe(value)
    expect(page.headers.get("cache-control")).toBe("no-store")
    expect(page.headers.get("content-security-policy")).not.toContain("unsafe-inline")
    expect(page.body).not.toMatch(/<script>|style="| on[a-z]+="/)
    const stream = await h.transport({ method: "GET", path: "/dashboard/projects/prj_aaaaaaaaaaaaaaaaaaaaaaaa/jobs/events", headers: {} })
    expect(stream.status).toBe(401)
    expect(stream.headers.get("content-type")).toContain("application/json")
  })
})

describe("dashboard projects and keys", () => {
  let projectId: string
  let secret: string

  it("creates a project and a key; the secret is on the creation page only, never cached", async () => {
    projectId = projectIdIn((await admin.post("/dashboard/projects", { name: "Acme <b>bold</b>" })).body)
    expect(projectId).not.toBe("")
    const keys = await admin.get(`/dashboard/projects/${projectId}/keys`)
    expect(keys.body).toContain("Acme &lt;b&gt;bold&lt;/b&gt;")
    const created = await admin.post(`/dashboard/projects/${projectId}/keys`, {
      name: "ci",
      environment: "test",
      scopes: ["media:resolve", "media:download"]
    })
    expect(created.headers.get("cache-control")).toBe("no-store")
    secret = secretIn(created.body)
    expect(secret).toMatch(/^svc_test_/)
    expect(await v1Auth(secret)).toBe("accepted")
    const list = await admin.get(`/dashboard/projects/${projectId}/keys`)
    expect(list.body).toContain(secret.slice(0, 13))
    expect(list.body).not.toContain(secret.slice(0, 16))
  })

  it("a key form without scopes is refused with a message and creates nothing", async () => {
    const before = keyIdsIn((await admin.get(`/dashboard/projects/${projectId}/keys`)).body).length
    const response = await admin.post(`/dashboard/projects/${projectId}/keys`, { name: "none", environment: "live" })
    expect(response.status).toBe(400)
    expect(response.body).toContain("Choose at least one scope.")
    expect(keyIdsIn((await admin.get(`/dashboard/projects/${projectId}/keys`)).body)).toHaveLength(before)
  })

  it("refuses forms without the session's CSRF token or from another origin, and changes nothing", async () => {
    const [keyId = ""] = keyIdsIn((await admin.get(`/dashboard/projects/${projectId}/keys`)).body)
    const path = `/dashboard/projects/${projectId}/keys/${keyId}/revoke`
    expect((await admin.post(path, { confirm: "yes", _csrf: "" })).status).toBe(403)
    expect((await admin.post(path, { confirm: "yes", _csrf: "x".repeat(43) })).status).toBe(403)
    expect((await admin.post(path, { confirm: "yes" }, { origin: "https://evil.example" })).status).toBe(403)
    const bob = h.client()
    await bob.signIn(BOB.email, BOB.password)
    // Bob's valid token is no use with the admin's session.
    expect((await admin.post(path, { confirm: "yes", _csrf: bob.csrf() })).status).toBe(403)
    expect(await v1Auth(secret)).toBe("accepted")
  })

  it("a non-member sees neither the project nor its keys, and cannot revoke them through a project of his own", async () => {
    const bob = h.client()
    await bob.signIn(BOB.email, BOB.password)
    expect((await bob.get("/dashboard")).body).not.toContain(projectId)
    for (const section of ["keys", "jobs", "settings", "jobs/events"]) {
      expect((await bob.get(`/dashboard/projects/${projectId}/${section}`)).status).toBe(404)
    }
    const own = projectIdIn((await bob.post("/dashboard/projects", { name: "Bob's" })).body)
    const [keyId = ""] = keyIdsIn((await admin.get(`/dashboard/projects/${projectId}/keys`)).body)
    expect((await bob.post(`/dashboard/projects/${own}/keys/${keyId}/revoke`, { confirm: "yes" })).status).toBe(404)
    expect(await v1Auth(secret)).toBe("accepted")
  })

  it("after the admin adds bob as a member, bob sees the project; unknown emails are explained", async () => {
    const unknown = await admin.post(`/dashboard/projects/${projectId}/members`, { email: "ghost@example.org" })
    expect(unknown.status).toBe(400)
    expect(unknown.body).toContain("No dashboard user has this email")
    const added = await admin.post(`/dashboard/projects/${projectId}/members`, { email: "BOB@example.org " })
    expect(added.body).toContain("bob@example.org is a member now.")
    const bob = h.client()
    await bob.signIn(BOB.email, BOB.password)
    expect((await bob.get("/dashboard")).body).toContain(projectId)
    expect((await bob.get(`/dashboard/projects/${projectId}/keys`)).status).toBe(200)
  })

  it("renames the project, and revoking needs the confirmation field", async () => {
    const renamed = await admin.post(`/dashboard/projects/${projectId}/rename`, { name: "Acme Renamed" })
    expect(renamed.body).toContain("The project is renamed.")
    expect((await admin.get("/dashboard")).body).toContain("Acme Renamed")

    const [keyId = ""] = keyIdsIn((await admin.get(`/dashboard/projects/${projectId}/keys`)).body)
    const unconfirmed = await admin.post(`/dashboard/projects/${projectId}/keys/${keyId}/revoke`, {})
    expect(unconfirmed.body).toContain("Revoke the key")
    expect(await v1Auth(secret)).toBe("accepted")
    const revoked = await admin.post(`/dashboard/projects/${projectId}/keys/${keyId}/revoke`, { confirm: "yes" })
    expect(revoked.body).toContain("is revoked")
    // Every gateway's key directory follows the revocation within KEYS_TRUST_MS: the next request may still be let in.
    await eventually(
      () => v1Auth(secret),
      (answer) => answer === "revoked_api_key",
      "the revoked key to be refused"
    )
  })
})

describe("dashboard projects per user (DASHBOARD_PROJECTS_PER_USER, default 10)", () => {
  it("a user creates projects up to the limit; one more is refused with the reason; the operator's limit for them lets them go on", async () => {
    const dave = { email: "dave@example.org", password: "daves-password-12" }
    await createUser(dave.email, dave.password)
    const client = h.client()
    await client.signIn(dave.email, dave.password)
    for (let n = 1; n <= 10; n++) {
      expect(projectIdIn((await client.post("/dashboard/projects", { name: `Project ${n}` })).body), `project ${n}`).not.toBe("")
    }
    const refused = await client.post("/dashboard/projects", { name: "Project 11" })
    expect(refused.status).toBe(422)
    expect(refused.body).toContain("You have created 10 projects, as many as you may.")
    // The name typed is kept; the list still shows his ten.
    expect(refused.body).toContain('value="Project 11"')
    expect([...refused.body.matchAll(/\/dashboard\/projects\/prj_[a-z2-7]{24}\/keys/g)].length).toBeGreaterThanOrEqual(10)
    // Other users are not held by his limit.
    expect(projectIdIn((await admin.post("/dashboard/projects", { name: "Admin's other" })).body)).not.toBe("")

    await h.gateway.run(runAdminCommand({ _tag: "SetUserProjectLimit", email: dave.email, limit: "11" }))
    expect(projectIdIn((await client.post("/dashboard/projects", { name: "Project 11" })).body)).not.toBe("")
    expect((await client.post("/dashboard/projects", { name: "Project 12" })).status).toBe(422)
  })
})

describe("dashboard jobs", () => {
  it("lists the project's recent jobs, newest first, with progress and the error of failed ones", async () => {
    const projectId = projectIdIn((await admin.post("/dashboard/projects", { name: "Jobs" })).body)
    const now = Date.now()
    const running = jobView(projectId, { status: "processing", progress: 42, createdAt: now - 1_000, expiresAt: now + 3_600_000 })
    const failed = jobView(projectId, {
      status: "failed",
      createdAt: now - 2_000,
      expiresAt: now + 3_600_000,
      error: { code: "media_unavailable", message: "This video is <private>.", retryable: false }
    })
    const elsewhere = jobView(projectIdIn((await admin.post("/dashboard/projects", { name: "Other" })).body), { createdAt: now })
    await h.gateway.run(
      Effect.gen(function* () {
        const jobs = yield* JobReadModel
        yield* Effect.forEach([running, failed, elsewhere], (job) => jobs.put(job))
      })
    )

    const page = await admin.get(`/dashboard/projects/${projectId}/jobs`)
    expect(page.body).toContain(`data-job-id="${running.id}" data-status="processing"`)
    expect(page.body).toContain(`<progress max="100" value="42"`)
    expect(page.body).toContain("media_unavailable: This video is &lt;private&gt;.")
    expect(page.body).not.toContain(elsewhere.id)

    expect([...page.body.matchAll(/data-job-id="(job_[a-z2-7]+)"/g)].map((m) => m[1])).toEqual([running.id, failed.id])
  })
})

describe("dashboard behind https", () => {
  it("cookies are Secure and __Host- prefixed when PUBLIC_BASE_URL is https", async () => {
    const secure = await startDashboardHarness({ PUBLIC_BASE_URL: "https://mds.example" })
    try {
      const login = await secure.transport({ method: "GET", path: "/dashboard/login", headers: {} })
      expect(login.headers.getSetCookie()[0]).toMatch(/^__Host-mds_login=.+; Path=\/; Max-Age=3600; HttpOnly; SameSite=Strict; Secure$/)
    } finally {
      await secure.close()
    }
  })
})
