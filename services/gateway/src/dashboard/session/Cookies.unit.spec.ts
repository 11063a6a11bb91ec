// Given Cookie headers and options, then the parsed values and the Set-Cookie attributes the dashboard relies on.
import { describe, expect, it } from "vitest"
import { cookieName, parseCookies, serializeCookie } from "./Cookies.ts"

describe("Cookies", () => {
  it("parses a Cookie header; the first of two equal names wins; junk is skipped", () => {
    expect(parseCookies("a=1; b=x%20y; a=2; junk; =v")).toEqual({ a: "1", b: "x y" })
    expect(parseCookies(undefined)).toEqual({})
  })

  it("session cookies are HttpOnly and SameSite=Strict, Secure and __Host- only over https", () => {
    expect(serializeCookie(cookieName("mds_session", false), "abc", { secure: false, maxAgeSeconds: 60 })).toBe(
      "mds_session=abc; Path=/; Max-Age=60; HttpOnly; SameSite=Strict"
    )
    expect(serializeCookie(cookieName("mds_session", true), "abc", { secure: true, maxAgeSeconds: 0 })).toBe(
      "__Host-mds_session=abc; Path=/; Max-Age=0; HttpOnly; SameSite=Strict; Secure"
    )
  })
})
