import { describe, expect, it } from "vitest"
import { summarizeCookieFile, withNetscapeHeader } from "./NetscapeCookies.ts"

const FILE = [
  "# Netscape HTTP Cookie File",
  "# exported",
  ".example.com\tTRUE\t/\tTRUE\t1893456000\tsession\tsecret-value",
  "#HttpOnly_media.example.com\tFALSE\t/\tFALSE\t1861920000\tauth\tanother",
  "video.test\tFALSE\t/\tFALSE\t0\tpref\tx",
  ""
].join("\n")

describe("summarizeCookieFile", () => {
  it("counts cookies, lists domains and finds the earliest expiry, session cookies aside", () => {
    expect(summarizeCookieFile(FILE)).toEqual({
      domains: ["example.com", "media.example.com", "video.test"],
      cookieCount: 3,
      expiresAt: 1861920000 * 1000
    })
  })

  it("names the bad line without repeating it", () => {
    const refused = summarizeCookieFile("# Netscape HTTP Cookie File\nexample.com TRUE / TRUE 0 name topsecret\n")
    expect(refused).toMatch(/^line 2 is not a Netscape cookie line/)
    expect(refused).not.toMatch(/topsecret/)
  })

  it("refuses a file without cookies and one that is too large", () => {
    expect(summarizeCookieFile("# Netscape HTTP Cookie File\n\n")).toBe("the file holds no cookies")
    expect(summarizeCookieFile(`a\tTRUE\t/\tTRUE\t0\tn\t${"v".repeat(300 * 1024)}`)).toMatch(/larger than 256 KiB/)
  })
})

describe("withNetscapeHeader", () => {
  it("adds the header yt-dlp needs, once", () => {
    expect(withNetscapeHeader("a\tTRUE\t/\tTRUE\t0\tn\tv")).toBe("# Netscape HTTP Cookie File\na\tTRUE\t/\tTRUE\t0\tn\tv")
    expect(withNetscapeHeader(FILE)).toBe(FILE)
  })
})
