import { randomBytes } from "node:crypto"
import { describe, expect, it } from "vitest"
import { cookieSlot, openCookies, sealCookies } from "./CookieCipher.ts"

describe("cookie cipher", () => {
  const key = randomBytes(32)
  const text = ".example.com\tTRUE\t/\tTRUE\t0\tsession\tsecret-value"

  it("opens what it sealed, and the sealed bytes never hold the plaintext", () => {
    const sealed = sealCookies(key, cookieSlot("prj_a", "youtube"), text)
    expect(sealed.includes(Buffer.from("secret-value"))).toBe(false)
    expect(openCookies(key, cookieSlot("prj_a", "youtube"), sealed)).toBe(text)
    expect(sealCookies(key, cookieSlot("prj_a", "youtube"), text).equals(sealed)).toBe(false)
  })

  it("refuses another key, another slot and altered bytes", () => {
    const sealed = sealCookies(key, cookieSlot("prj_a", "youtube"), text)
    expect(openCookies(randomBytes(32), cookieSlot("prj_a", "youtube"), sealed)).toBeNull()
    expect(openCookies(key, cookieSlot("prj_b", "youtube"), sealed)).toBeNull()
    const altered = Buffer.from(sealed)
    altered[altered.length - 1] = (altered[altered.length - 1] ?? 0) ^ 1
    expect(openCookies(key, cookieSlot("prj_a", "youtube"), altered)).toBeNull()
  })
})
