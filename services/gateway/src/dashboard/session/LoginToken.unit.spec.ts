// Given sign-in form tokens, then only an unexpired one this gateway signed, submitted in both places, is accepted.
import { describe, expect, it } from "vitest"
import { issueLoginToken, LOGIN_TOKEN_MS, verifyLoginToken } from "./LoginToken.ts"

const KEY = "gateway-secret"
const NOW = 1_800_000_000_000

describe("login token", () => {
  it("accepts an issued token in the cookie and the field until it expires", () => {
    const token = issueLoginToken(KEY, NOW)
    expect(verifyLoginToken(KEY, token, token, NOW + 1000)).toBe(true)
    expect(verifyLoginToken(KEY, token, token, NOW + LOGIN_TOKEN_MS)).toBe(false)
  })

  it("refuses a made-up pair (the old unsigned double submit accepted any equal pair)", () => {
    expect(verifyLoginToken(KEY, "x".repeat(43), "x".repeat(43), NOW)).toBe(false)
    const forged = `${NOW + LOGIN_TOKEN_MS}.${"A".repeat(32)}.${"B".repeat(43)}`
    expect(verifyLoginToken(KEY, forged, forged, NOW)).toBe(false)
  })

  it("refuses a token signed by another key, a stretched expiry, and a field that differs from the cookie", () => {
    const token = issueLoginToken(KEY, NOW)
    expect(verifyLoginToken("other-secret", token, token, NOW)).toBe(false)
    const [, random, signature] = token.split(".")
    const stretched = `${NOW + 10 * LOGIN_TOKEN_MS}.${random}.${signature}`
    expect(verifyLoginToken(KEY, stretched, stretched, NOW)).toBe(false)
    expect(verifyLoginToken(KEY, token, issueLoginToken(KEY, NOW), NOW)).toBe(false)
    expect(verifyLoginToken(KEY, token, "", NOW)).toBe(false)
  })
})
