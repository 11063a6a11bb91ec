// The dashboard's destinations page: add an S3 bucket (its secret never shown again), see an operator's folder without
// its path, test it, remove; members only.
import { randomBytes } from "node:crypto"
import { mkdtemp, readdir } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runAdminCommand } from "../../src/cli/runAdminCommand.ts"
import type { DashboardClient } from "../../../../test/support/DashboardClient.ts"
import { type DashboardHarness, startDashboardHarness } from "./DashboardHarness.ts"

const ADMIN = { email: "admin@example.org", password: "bootstrap-password-1" }
const EVE = { email: "eve@example.org", password: "eves-password-1234" }
const ACCESS_KEY = "AKIADASHBOARDKEY0042"
const SECRET = "dashboard-secret-value-0123456789"

let h: DashboardHarness
let admin: DashboardClient
let projectId: string
let folder: string

const projectIdIn = (html: string) => /\/dashboard\/projects\/(prj_[a-z2-7]{24})\//.exec(html)?.[1] ?? ""

beforeAll(async () => {
  h = await startDashboardHarness({
    DASHBOARD_ADMIN_EMAIL: ADMIN.email,
    DASHBOARD_ADMIN_PASSWORD: ADMIN.password,
    DESTINATIONS_ENCRYPTION_KEY: randomBytes(32).toString("hex")
  })
  await h.gateway.run(
    runAdminCommand({ _tag: "CreateUser", email: EVE.email, passwordFromStdin: true }, { readStdin: Effect.succeed(`${EVE.password}\n`) })
  )
  admin = h.client()
  await admin.signIn(ADMIN.email, ADMIN.password)
  projectId = projectIdIn((await admin.post("/dashboard/projects", { name: "Destinations" })).body)
  folder = await mkdtemp(join(tmpdir(), "mds-dashboard-library-"))
})

afterAll(async () => {
  await h?.close()
})

const form = (overrides: Record<string, string> = {}) => ({
  name: "Offsite",
  endpoint: "https://s3.example.com",
  bucket: "media-offsite",
  region: "",
  prefix: "shows",
  access_key_id: ACCESS_KEY,
  secret_access_key: SECRET,
  ...overrides
})

describe("dashboard destinations", () => {
  it("has a Destinations tab; adds an S3 bucket showing only the key's last 4 characters, never the secret", async () => {
    const base = `/dashboard/projects/${projectId}/destinations`
    const empty = await admin.get(base)
    expect(empty.body).toContain("No destinations yet.")
    expect(empty.body).toContain(`href="${base}" aria-current="page"`)

    const bad = await admin.post(base, form({ bucket: "Not_A_Bucket" }))
    expect(bad.status).toBe(400)
    expect(bad.body).toContain("bucket")
    expect(bad.body).not.toContain(SECRET)

    const added = await admin.post(base, form())
    expect(added.status, added.body).toBe(200)
    expect(added.body).toContain("Offsite is added")
    expect(added.body).toContain(`key ****${ACCESS_KEY.slice(-4)}`)
    for (const page of [added.body, (await admin.get(base)).body]) {
      expect(page).not.toContain(SECRET)
      expect(page).not.toContain(ACCESS_KEY)
    }
  })

  it("lists a folder the operator gave without its path, and tests it by writing into it", async () => {
    const id = await h.gateway.run(runAdminCommand({ _tag: "AddFolderDestination", projectId, name: "Plex library", path: folder }))
    const base = `/dashboard/projects/${projectId}/destinations`
    const listed = await admin.get(base)
    expect(listed.body).toContain(`data-destination="${id}"`)
    expect(listed.body).toContain("given by the operator")
    expect(listed.body).not.toContain(folder)
    const tested = await admin.post(`${base}/${id}/test`, {})
    expect(tested.status, tested.body).toBe(200)
    expect(tested.body).toContain("The test worked")
    expect(await readdir(folder)).toEqual([])
  })

  it("keeps them from users outside the project, and removes them", async () => {
    const base = `/dashboard/projects/${projectId}/destinations`
    const eve = h.client()
    await eve.signIn(EVE.email, EVE.password)
    const denied = await eve.get(base)
    expect(denied.status).toBe(404)
    expect(denied.body).not.toContain("Offsite")

    const id = /data-destination="(dst_[a-z2-7]{24})"/.exec((await admin.get(base)).body)?.[1] ?? ""
    const removed = await admin.post(`${base}/${id}/remove`, {})
    expect(removed.status, removed.body).toBe(200)
    expect(removed.body).toContain("is removed")
    expect(removed.body).not.toContain(`data-destination="${id}"`)
  })
})
