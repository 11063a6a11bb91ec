import { describe, expect, it } from "vitest"
import { maskSecrets } from "./maskSecrets.ts"

const KEY = "svc_live_0123456789abcdefghijABCDEFGHIJ0123456789"

describe("maskSecrets", () => {
  it("keeps the environment and four characters of a key", () => {
    expect(maskSecrets(KEY)).toBe("svc_live_0123****")
    expect(maskSecrets("svc_test_Zz9")).toBe("svc_test_Zz9****")
  })
  it("masks every key wherever it sits in a text, and leaves the rest alone", () => {
    const line = JSON.stringify({ path: `/v1/jobs/${KEY}`, query: `?api_key=${KEY}&x=1`, message: `Bearer ${KEY}.` })
    const masked = maskSecrets(line)
    expect(masked).not.toContain("abcdefghij")
    expect(masked.match(/svc_live_0123\*\*\*\*/g)).toHaveLength(3)
    expect(masked).toContain("&x=1")
  })
  it("leaves text without keys unchanged", () => {
    expect(maskSecrets("job_abc svc_prod_xyz svc_live_")).toBe("job_abc svc_prod_xyz svc_live_")
  })
})
