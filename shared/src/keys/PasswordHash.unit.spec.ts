// Password hashing: salted, parameters recorded, verified only by the right password, malformed hashes refused.
import { describe, expect, it } from "vitest"
import {
  DECOY_PASSWORD_HASH,
  generatePassword,
  hashPassword,
  MIN_PASSWORD_LENGTH,
  parsePasswordHash,
  verifyPassword
} from "./PasswordHash.ts"

// Cheap parameters keep the unit tier fast; the defaults are exercised by the dashboard tests.
const FAST = { N: 1024, r: 8, p: 1 }

describe("PasswordHash", () => {
  it("records the parameters and a fresh salt in the hash string", async () => {
    const a = await hashPassword("correct horse battery", FAST)
    const b = await hashPassword("correct horse battery", FAST)
    expect(a).toMatch(/^scrypt\$N=1024,r=8,p=1\$[A-Za-z0-9+/=]{24}\$[A-Za-z0-9+/=]{44}$/)
    expect(a).not.toBe(b)
    expect(a).not.toContain("correct horse")
  })

  it("verifies the right password only", async () => {
    const stored = await hashPassword("correct horse battery", FAST)
    expect(await verifyPassword("correct horse battery", stored)).toBe(true)
    expect(await verifyPassword("correct horse batterY", stored)).toBe(false)
    expect(await verifyPassword("", stored)).toBe(false)
  })

  it("uses the parameters from the string, so old hashes keep verifying after the defaults change", async () => {
    const stored = await hashPassword("pw-with-other-params", { N: 2048, r: 4, p: 2 })
    expect(parsePasswordHash(stored)?.params).toEqual({ N: 2048, r: 4, p: 2 })
    expect(await verifyPassword("pw-with-other-params", stored)).toBe(true)
  })

  it("the default parameters verify too (N=2^15, r=8, p=3)", async () => {
    const stored = await hashPassword("default parameters")
    expect(stored.startsWith("scrypt$N=32768,r=8,p=3$")).toBe(true)
    expect(await verifyPassword("default parameters", stored)).toBe(true)
  })

  it("refuses malformed hashes and resource-bomb parameters instead of trying them", async () => {
    expect(await verifyPassword("x", "plain-text")).toBe(false)
    expect(parsePasswordHash("scrypt$N=1000,r=8,p=1$AAAA$AAAA")).toBeNull() // not a power of two
    expect(parsePasswordHash("scrypt$N=4194304,r=8,p=1$AAAA$AAAA")).toBeNull()
    expect(parsePasswordHash("scrypt$N=1024,r=999,p=1$AAAA$AAAA")).toBeNull()
  })

  it("the decoy hash parses with the default parameters and matches no password", async () => {
    expect(parsePasswordHash(DECOY_PASSWORD_HASH)?.params).toEqual({ N: 32768, r: 8, p: 3 })
    expect(await verifyPassword("", DECOY_PASSWORD_HASH)).toBe(false)
  })

  it("generated passwords are long enough and differ", () => {
    const passwords = new Set(Array.from({ length: 50 }, generatePassword))
    expect(passwords.size).toBe(50)
    for (const password of passwords) {
      expect(password.length).toBeGreaterThanOrEqual(MIN_PASSWORD_LENGTH)
      expect(password).toMatch(/^[A-Za-z2-9]{20}$/)
    }
  })
})
