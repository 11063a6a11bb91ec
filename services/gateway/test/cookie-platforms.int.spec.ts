// One rule for the platform of a URL's cookies: POST /cookies takes exactly the ids GET /platforms marks with
// cookies: true, which are the ids runs look cookies up by (the platform of the URL's host).
import { randomBytes } from "node:crypto"
import { COOKIES_BODY_LIMIT_BYTES, MAX_COOKIES_TXT_LENGTH } from "@mds/shared/api/Requests"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let key: string

beforeAll(async () => {
  h = await startHarness({ COOKIES_ENCRYPTION_KEY: randomBytes(32).toString("hex") })
  key = (await h.provisionKey()).key
  await h.publishCatalog(["Vimeo", "Mediasite", "Generic"], "cookie-platforms-catalog")
})
afterAll(async () => {
  await h?.close()
})

const COOKIES = `# Netscape HTTP Cookie File\n.example.org\tTRUE\t/\tFALSE\t${Math.floor(Date.now() / 1000) + 86_400}\tsession\tabc\n`

const upload = (platform: string, cookiesTxt = COOKIES) =>
  h.gateway.app.inject({
    method: "POST",
    url: "/v1/cookies",
    payload: JSON.stringify({ platform, cookies_txt: cookiesTxt }),
    headers: { "content-type": "application/json", "x-api-key": key }
  })

describe("the platform of a URL's cookies", () => {
  it("GET /platforms marks the ids cookies are kept under; POST /cookies takes exactly those", async () => {
    const listed = await h.gateway.app.inject({ method: "GET", url: "/v1/platforms", headers: { "x-api-key": key } })
    expect(listed.statusCode, listed.body).toBe(200)
    const platforms = listed.json().data as ReadonlyArray<{ id: string; cookies: boolean }>
    expect(platforms.map((p) => [p.id, p.cookies])).toEqual([
      ["vimeo", true],
      ["mediasite", false],
      ["generic", true]
    ])
    for (const { id, cookies } of platforms) {
      const response = await upload(id)
      expect(response.statusCode, `${id}: ${response.body}`).toBe(cookies ? 200 : 400)
    }
    const refused = await upload("mediasite")
    expect(refused.json().error).toMatchObject({ code: "invalid_request", message: expect.stringContaining("generic") })
  })

  it("reads every body its schema admits: the longest file, each character JSON's longest escape, is judged, never 413", async () => {
    // 16,384 control characters are a file the schema admits (a bad one) in a body of over 96 KiB.
    const longest = await upload("generic", "\u001f".repeat(MAX_COOKIES_TXT_LENGTH))
    expect(longest.statusCode, longest.body).toBe(422)
    expect(longest.json().error.code).toBe("invalid_cookie_file")
    // Past the route's own limit, the body is refused unread, and the message names that limit.
    const over = await upload("generic", "x".repeat(COOKIES_BODY_LIMIT_BYTES))
    expect(over.statusCode, over.body).toBe(413)
    expect(over.json().error).toMatchObject({
      code: "payload_too_large",
      message: expect.stringContaining(String(COOKIES_BODY_LIMIT_BYTES))
    })
  })
})
