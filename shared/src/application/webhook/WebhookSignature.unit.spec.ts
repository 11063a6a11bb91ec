// Given a server secret and a body, then the derived secret and signature match values computed by Python's hmac.
import { describe, expect, it } from "vitest"
import { signatureHeader, verifySignature, webhookSecret } from "./WebhookSignature.ts"

// python3: hmac.new(b"server-secret", b"webhook-secret:prj_a:whk_1", sha256) -> base64url; then
// hmac.new(secret, b'1700000000.{"a":1}', sha256).hexdigest()
const SECRET = "whsec_x0vUvXutgHbwkR7RwwVYzssPjnfkHaiRTEhxf7eqbmo"
const SIGNATURE = "74fc90d22080108418520884113bac8ca2104a9867de356866f8e62c7b19900a"

describe("webhook signatures", () => {
  it("derive the endpoint secret and sign t.body as an independent HMAC implementation does", () => {
    expect(webhookSecret("server-secret", "prj_a", "whk_1")).toBe(SECRET)
    expect(signatureHeader(SECRET, 1_700_000_000, `{"a":1}`)).toBe(`t=1700000000,v1=${SIGNATURE}`)
  })

  it("another endpoint id or project gives another secret", () => {
    expect(webhookSecret("server-secret", "prj_a", "whk_2")).not.toBe(SECRET)
    expect(webhookSecret("server-secret", "prj_b", "whk_1")).not.toBe(SECRET)
  })

  it("verification accepts the right body within the tolerance and nothing else", () => {
    const header = signatureHeader(SECRET, 1_700_000_000, `{"a":1}`)
    expect(verifySignature(SECRET, header, `{"a":1}`, 1_700_000_100)).toBe(true)
    expect(verifySignature(SECRET, header, `{"a":2}`, 1_700_000_100)).toBe(false)
    expect(verifySignature("whsec_other", header, `{"a":1}`, 1_700_000_100)).toBe(false)
    expect(verifySignature(SECRET, header, `{"a":1}`, 1_700_000_301)).toBe(false)
    expect(verifySignature(SECRET, "t=x,v1=00", `{"a":1}`, 1_700_000_000)).toBe(false)
  })
})
