// The dashboard's cookies page: upload a cookies.txt for a platform, see only its metadata, remove it; members only.
import { randomBytes } from "node:crypto"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAdminCommand } from "../../src/cli/runAdminCommand.ts"
import type { DashboardClient } from "../../../../test/support/DashboardClient.ts"
import { type DashboardHarness, startDashboardHarness } from "./DashboardHarness.ts"

const ADMIN = { email: "admin@example.org", password: "bootstrap-password-1" }
const EVE = { email: "eve@example.org", password: "eves-password-1234" }
const SECRET = "session-secret-value-42"
const FILE = `# Netscape HTTP Cookie File\n.example.com\tTRUE\t/\tTRUE\t1893456000\tsid\t${SECRET}\n`

let h: DashboardHarness
let admin: DashboardClient
let projectId: string

const projectIdIn = (html: string) => /\/dashboard\/projects\/(prj_[a-z2-7]{24})\//.exec(html)?.[1] ?? ""

beforeAll(async () => {
  h = await startDashboardHarness({
    DASHBOARD_ADMIN_EMAIL: ADMIN.email,
    DASHBOARD_ADMIN_PASSWORD: ADMIN.password,
    COOKIES_ENCRYPTION_KEY: randomBytes(32).toString("hex")
  })
  await h.gateway.run(
    runAdminCommand({ _tag: "CreateUser", email: EVE.email, passwordFromStdin: true }, { readStdin: Effect.succeed(`${EVE.password}\n`) })
  )
  admin = h.client()
  await admin.signIn(ADMIN.email, ADMIN.password)
  projectId = projectIdIn((await admin.post("/dashboard/projects", { name: "Cookies" })).body)
})

afterAll(async () => {
  await h?.close()
})

describe("dashboard cookies", () => {
  it("stores a cookies.txt and shows its domains and count, never a cookie", async () => {
    const base = `/dashboard/projects/${projectId}/cookies`
    expect((await admin.get(base)).body).toContain("No cookies stored.")
    const bad = await admin.post(base, { platform: "vimeo", cookies_txt: "garbage" })
    expect(bad.status).toBe(400)
    expect(bad.body).toContain("This is not a Netscape cookies.txt: line 1")

    const stored = await admin.post(base, { platform: "vimeo", cookies_txt: FILE })
    expect(stored.status).toBe(200)
    expect(stored.body).toContain("1 cookies stored for vimeo.")
    expect(stored.body).toContain(`data-platform="vimeo"`)
    expect(stored.body).toContain("example.com")
    expect(stored.body).not.toContain(SECRET)
    expect((await admin.get(base)).body).not.toContain(SECRET)
  })

  it("keeps them from users outside the project, and removes them", async () => {
    const eve = h.client()
    await eve.signIn(EVE.email, EVE.password)
    const denied = await eve.get(`/dashboard/projects/${projectId}/cookies`)
    expect(denied.status).toBe(404)
    expect(denied.body).not.toContain("example.com")

    const removed = await admin.post(`/dashboard/projects/${projectId}/cookies/vimeo/remove`, {})
    expect(removed.body).toContain("The cookies for vimeo are removed.")
    expect(removed.body).toContain("No cookies stored.")
  })
})
