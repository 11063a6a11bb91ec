// Given request headers and query, then the presented key or the reason there is none.
import { Result } from "effect"
import { describe, expect, it } from "vitest"
import { type CredentialSources, readPresentedKey } from "./PresentedKey.ts"

const KEY = "svc_live_0123456789abcdefghijABCDEFGHIJ0123456789"
const read = (headers: CredentialSources["headers"], query: CredentialSources["query"] = {}) => readPresentedKey({ headers, query })
const failureTag = (result: ReturnType<typeof read>) => (Result.isFailure(result) ? result.failure._tag : "ok")

describe("readPresentedKey", () => {
  it("reads X-API-Key", () => {
    expect(read({ "x-api-key": KEY })).toEqual(Result.succeed(KEY))
  })

  it("reads Authorization: Bearer, whatever the scheme's case", () => {
    expect(read({ authorization: `Bearer ${KEY}` })).toEqual(Result.succeed(KEY))
    expect(read({ authorization: `bearer   ${KEY}` })).toEqual(Result.succeed(KEY))
  })

  it("accepts both headers when they agree, refuses them when they differ", () => {
    expect(read({ "x-api-key": KEY, authorization: `Bearer ${KEY}` })).toEqual(Result.succeed(KEY))
    expect(failureTag(read({ "x-api-key": KEY, authorization: "Bearer other" }))).toBe("InvalidApiKey")
  })

  it("no header, or an empty one, is a missing key", () => {
    expect(failureTag(read({}))).toBe("MissingApiKey")
    expect(failureTag(read({ "x-api-key": "  " }))).toBe("MissingApiKey")
  })

  it("other Authorization schemes and repeated headers are invalid", () => {
    expect(failureTag(read({ authorization: `Basic ${KEY}` }))).toBe("InvalidApiKey")
    expect(failureTag(read({ authorization: "Bearer" }))).toBe("InvalidApiKey")
    expect(failureTag(read({ "x-api-key": [KEY, KEY] }))).toBe("InvalidApiKey")
  })

  it("never reads the query string: a key there alone is a missing key, and is ignored next to a header", () => {
    const alone = read({}, { api_key: KEY })
    expect(failureTag(alone)).toBe("MissingApiKey")
    expect(Result.isFailure(alone) && alone.failure.message).toContain("query string")
    expect(read({ "x-api-key": KEY }, { access_token: "other" })).toEqual(Result.succeed(KEY))
  })
})
