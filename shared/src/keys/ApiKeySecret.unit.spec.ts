// API key secrets: format and entropy, the peppered hash, the key id derived from it and constant-time comparison.
import { createHmac } from "node:crypto"
import { describe, expect, it } from "vitest"
import { displayPrefix, generateSecret, hashesEqual, hashSecret, keyIdFromHash, SECRET_PATTERN, secretHasher } from "./ApiKeySecret.ts"

describe("ApiKeySecret", () => {
  it("secrets carry their environment and 40 base62 characters, and never repeat", () => {
    const live = Array.from({ length: 200 }, () => generateSecret("live"))
    expect(new Set(live).size).toBe(200)
    for (const secret of live) expect(secret).toMatch(/^svc_live_[0-9A-Za-z]{40}$/)
    expect(generateSecret("test")).toMatch(SECRET_PATTERN)
    // Every base62 character shows up: the sampling is not stuck on part of the alphabet.
    expect(
      new Set(
        live
          .join("")
          .slice(0, 8000)
          .replace(/svc_live_/g, "")
      ).size
    ).toBe(62)
  })

  it("the hash is HMAC-SHA256 under the pepper: stable for one pepper, different under another", () => {
    const secret = generateSecret("live")
    expect(hashSecret("pepper-1", secret)).toMatch(/^[0-9a-f]{64}$/)
    expect(hashSecret("pepper-1", secret)).toBe(hashSecret("pepper-1", secret))
    expect(hashSecret("pepper-2", secret)).not.toBe(hashSecret("pepper-1", secret))
    expect(hashSecret("pepper-1", `${secret}x`)).not.toBe(hashSecret("pepper-1", secret))
  })

  it("gives exactly node's HMAC-SHA256, for peppers shorter and longer than a block and for any secret length", () => {
    const peppers = ["p", "pepper-1", "x".repeat(64), "y".repeat(65), "z".repeat(200), "pfeffer-ß-ü-€"]
    const secrets = ["", "a", generateSecret("live"), "é".repeat(100), "s".repeat(256), "t".repeat(257), "u".repeat(1000)]
    for (const pepper of peppers) {
      const hasher = secretHasher(pepper)
      for (const secret of secrets) {
        const expected = createHmac("sha256", pepper).update(secret).digest("hex")
        // Twice: the reused buffers must not carry anything from one call into the next.
        expect(hasher(secret)).toBe(expected)
        expect(hasher(secret)).toBe(expected)
        expect(hashSecret(pepper, secret)).toBe(expected)
      }
    }
  })

  it("the key id is derived from the hash, so a presented secret names its key's subject", () => {
    const hash = hashSecret("p", generateSecret("test"))
    expect(keyIdFromHash(hash)).toBe(`key_${hash.slice(0, 24)}`)
  })

  it("the display prefix shows the environment and 4 characters, never the rest", () => {
    const secret = "svc_live_Ab3xQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQQ"
    expect(displayPrefix(secret)).toBe("svc_live_Ab3x")
    expect(displayPrefix("svc_test_Zz9yRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRRR")).toBe("svc_test_Zz9y")
  })

  it("hashesEqual compares whole hashes, any length difference is unequal", () => {
    const hash = hashSecret("p", "svc_live_x")
    expect(hashesEqual(hash, hash)).toBe(true)
    expect(hashesEqual(hash, hashSecret("p", "svc_live_y"))).toBe(false)
    expect(hashesEqual(hash, hash.slice(0, 62))).toBe(false)
    expect(hashesEqual(hash, "")).toBe(false)
  })
})
