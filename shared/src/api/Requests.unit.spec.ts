// Given URLs and download bodies, then what the request schemas (the ones the gateway decodes with) accept.
import { Option, Schema } from "effect"
import { describe, expect, it } from "vitest"
import { DownloadRequest, HttpUrlString } from "./Requests.ts"

const isUrl = Schema.is(HttpUrlString)
const isDownload = (body: unknown) => Option.isSome(Schema.decodeUnknownOption(DownloadRequest)(body))

describe("HttpUrlString", () => {
  it.each([
    [
      "accepts http(s) URLs with any valid port, path and query",
      [
        "https://vimeo.com/76979871",
        "http://127.0.0.1:34567/media/clip.mp4",
        "HTTPS://a.example:65535/x?y=1#z",
        "http://h",
        "http://[::1]/x.mp4",
        "http://[2001:db8::8a2e:370:7334]:8080/"
      ]
    ],
    [
      "lets odd spellings of a host through to the egress guard, which answers them url_not_allowed",
      [
        "https://user:pw@a.example/",
        "http://[::ffff:127.0.0.1]/x",
        "http://\uff11\uff12\uff17.0.0.1/",
        "http://127.0.\t0.1/",
        "http://169.254.169.254\\latest"
      ]
    ]
  ])("%s", (_title, urls) => {
    for (const url of urls) {
      expect(isUrl(url), url).toBe(true)
    }
  })

  it("refuses other schemes, impossible ports and spaces", () => {
    for (const url of ["ftp://a.example/x", "http://a.example:65536/", "http://a b/", "vimeo.com/1", "", "http://[:]/", "http://[::1/"]) {
      expect(isUrl(url), url).toBe(false)
    }
  })
})

describe("DownloadRequest", () => {
  it("needs format and exactly one of media_id and url", () => {
    expect(isDownload({ format: "video_best", media_id: "med_x" })).toBe(true)
    expect(isDownload({ format: "video_best", url: "https://vimeo.com/1" })).toBe(true)
    expect(isDownload({ format: "video_best", media_id: "med_x", url: "https://vimeo.com/1" })).toBe(false)
    expect(isDownload({ format: "video_best" })).toBe(false)
    expect(isDownload({ media_id: "med_x" })).toBe(false)
  })
})
