// Two gateway processes: a key revoked in the dashboard of one is refused by the other within one second.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { dashboardClient, fetchTransport } from "../support/DashboardClient.ts"
import { eventually } from "../support/Eventually.ts"
import { startServiceStack, type ServiceStack } from "../support/ServiceStack.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"

/** The bound: every gateway refuses a revoked key within 1 s. */
const PROPAGATION_BOUND_MS = 1_000

let stack: ServiceStack

beforeAll(async () => {
  stack = await startServiceStack({ gateways: 2 })
})

afterAll(async () => {
  await stack?.close()
})

describe("key revocation across gateway processes", () => {
  it("revoked on gateway A, refused on gateway B within 1 s, while B's cache held the key as valid", async () => {
    const [urlA = "", urlB = ""] = stack.gatewayUrls
    const originA = new URL(urlA).origin
    const password = await stack.cli(["user", "create", "ops@example.org"])
    const dashboard = dashboardClient(fetchTransport(originA), originA)
    expect((await dashboard.signIn("ops@example.org", password)).body).toContain("<h1>Projects</h1>")

    const projectPage = await dashboard.post("/dashboard/projects", { name: "Fleet" })
    const projectId = /\/dashboard\/projects\/(prj_[a-z2-7]{24})\/keys/.exec(projectPage.body)?.[1] ?? ""
    expect(projectId).not.toBe("")
    const created = await dashboard.post(`/dashboard/projects/${projectId}/keys`, {
      name: "worker",
      environment: "test",
      scopes: ["media:resolve"]
    })
    const secret = /id="secret"[^>]*value="(svc_test_[0-9A-Za-z]{40})"/.exec(created.body)?.[1] ?? ""
    expect(secret, created.body.slice(0, 2000)).not.toBe("")
    const keyId =
      new RegExp(`/dashboard/projects/${projectId}/keys/(key_[a-f0-9]{24})/revoke`).exec(
        (await dashboard.get(`/dashboard/projects/${projectId}/keys`)).body
      )?.[1] ?? ""
    expect(keyId).not.toBe("")

    // B has looked the key up, so from now on it answers from its in-process cache.
    for (let i = 0; i < 5; i++) {
      const warm = await apiRequest(urlB, "GET", "/platforms", { key: secret })
      expect(warm.status, describeResponse(warm)).toBe(200)
    }

    await dashboard.get(`/dashboard/projects/${projectId}/keys/${keyId}/revoke`)
    const revoking = dashboard.post(`/dashboard/projects/${projectId}/keys/${keyId}/revoke`, { confirm: "yes" })
    // Asked every 10 ms: the wait itself is what is measured.
    const refused = await eventually(
      () => apiRequest(urlB, "GET", "/platforms", { key: secret }),
      (response) => response.status === 401 && response.body?.error?.code === "revoked_api_key",
      `gateway B to refuse the key within ${PROPAGATION_BOUND_MS} ms of the revocation`,
      PROPAGATION_BOUND_MS,
      10
    )
    expect((await revoking).body).toContain("is revoked")
    expect(refused.body.error.code).toBe("revoked_api_key")

    // And A refuses it too; neither process ever logged the secret.
    const onA = await apiRequest(urlA, "GET", "/platforms", { key: secret })
    expect(onA.body?.error?.code).toBe("revoked_api_key")
    expect(stack.logs()).not.toContain(secret)
    expect(stack.logs()).not.toContain(password)
  })
})
