// Given log text holding credentials, then only their harmless prefixes remain.
import { describe, expect, it } from "vitest"
import { maskSecrets } from "./SecretMasking.ts"

describe("maskSecrets", () => {
  it("masks API keys, webhook secrets, link signatures and bearer tokens", () => {
    const key = `svc_live_${"A1b2".repeat(10)}`
    const line = JSON.stringify({
      message: `presented ${key} and Bearer ${key}`,
      link: "http://h/v1/files/a.mp4?expires=1&signature=abc123def",
      secret: "whsec_x0vUvXutgHbwkR7RwwVYzssPjnfkHaiRTEhxf7eqbmo"
    })
    const masked = maskSecrets(line)
    expect(masked).not.toContain(key)
    expect(masked).toContain("svc_live_A1b2…")
    expect(masked).toContain("Bearer …")
    expect(masked).toContain("signature=…")
    expect(masked).not.toContain("abc123def")
    expect(masked).toContain("whsec_…")
    expect(masked).not.toContain("x0vUvXut")
    expect(JSON.parse(masked).link).toBe("http://h/v1/files/a.mp4?expires=1&signature=…")
  })

  it("masks a key glued to other word characters, and a percent-encoded one", () => {
    const body = "Zx9Q".repeat(10)
    const key = `svc_live_${body}`
    for (const text of [
      `/v1/jobs/job_${key}`,
      `/v1/jobs/${key}_x`,
      `/v1/jobs/x${key}y`,
      `/v1/jobs/svc%5Flive%5F${body}`,
      `/v1/jobs/svc%5ftest%5f${body}`,
      `/v1/jobs/%73vc_live_${body.slice(0, 4)}%5A${body.slice(5)}`
    ]) {
      const masked = maskSecrets(JSON.stringify({ message: `No job ${text}` }))
      expect(masked, text).not.toContain(body.slice(4))
      expect(masked, text).not.toContain(body.slice(5))
      expect(masked, text).toContain("…")
    }
  })

  it("leaves ordinary text alone", () => {
    const line = JSON.stringify({ message: "request", path: "/v1/jobs/job_abc", request_id: "req_0123" })
    expect(maskSecrets(line)).toBe(line)
  })
})
