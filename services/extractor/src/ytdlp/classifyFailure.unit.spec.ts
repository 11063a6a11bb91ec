import { describe, expect, it } from "vitest"
import { WARM_RUN_LOST } from "../warm/WarmRun.ts"
import { classifyFailure, failureMessage, refusalMessage } from "./classifyFailure.ts"

describe("classifyFailure of a silent video's audio extraction", () => {
  it("is format_unavailable", () => {
    expect(classifyFailure("ERROR: Postprocessing: WARNING: unable to obtain file audio codec with ffprobe", false)).toBe(
      "format_unavailable"
    )
  })
})

describe("classifyFailure", () => {
  it.each([
    ["ERROR: Unsupported URL: https://example.com/", "unsupported_platform"],
    ["ERROR: [youtube] dQw4w9WgXcQ: This live event will begin in 3 hours.", "live_not_started"],
    ["ERROR: [youtube] dQw4w9WgXcQ: Premieres in 2 days", "live_not_started"],
    ["ERROR: [youtube] dQw4w9WgXcQ: This live event will begin in a few moments.", "live_not_started"],
    ["ERROR: [youtube] dQw4w9WgXcQ: This video is not available", "media_unavailable"],
    ['ERROR: Unable to handle request: Unsupported url scheme: "httpproxy" (urllib, curl_cffi)', "url_not_allowed"],
    [
      "ERROR: [generic] missing: Unable to download webpage: HTTP Error 404: Not Found (caused by <HTTPError 404: Not Found>)",
      "media_unavailable"
    ],
    ["ERROR: [generic] removed: Unable to download webpage: HTTP Error 410: Gone", "media_unavailable"],
    ["ERROR: [vimeo] 123: This video is private", "media_unavailable"],
    ["ERROR: [TikTok] 7: Video not available, status code 10204", "media_unavailable"],
    ["ERROR: [generic] clip: Requested format is not available. Use --list-formats for a list of available formats", "format_unavailable"],
    ["ERROR: [generic] x: Unable to download webpage: HTTP Error 502: Bad Gateway", "transient"],
    ["ERROR: [generic] x: Unable to download webpage: HTTP Error 503: Service Unavailable", "transient"],
    ["ERROR: [vimeo] 1: Unable to download JSON metadata: HTTP Error 429: Too Many Requests", "transient"],
    ["ERROR: [generic] x: Unable to download webpage: <urlopen error [Errno 111] Connection refused>", "transient"],
    ["ERROR: [download] Got error: The read operation timed out", "transient"],
    ["ERROR: unable to download video data: Remote end closed connection without response", "transient"],
    [
      "  0     0    0     0    0     0      0      0 --:--:-- --:--:-- --:--:--     0\rcurl: (22) The requested URL returned error: 404\n\n\nERROR: curl exited with code 22",
      "media_unavailable"
    ],
    [
      "curl: (22) The requested URL returned error: 503\nWarning: Problem : HTTP error. Will retry in 1 seconds. 1 retries left.\n\ncurl: (22) The requested URL returned error: 503\n\n\nERROR: curl exited with code 22",
      "transient"
    ],
    ["curl: (18) transfer closed with 1000 bytes remaining to read\nERROR: curl exited with code 18", "transient"],
    ["curl: (28) Operation timed out after 20000 milliseconds with 0 bytes received\nERROR: curl exited with code 28", "transient"],
    ["Traceback (most recent call last):\nKeyError: 'foo'", "failed"],
    // A warm run whose runner died under it, whatever it printed before: another run may pass.
    [`[download]  12.0% of 5.00MiB\n${WARM_RUN_LOST}`, "transient"],
    [`ERROR: [generic] x: HTTP Error 404: Not Found\n${WARM_RUN_LOST}`, "transient"]
  ])("classifies %j", (stderr, code) => {
    expect(classifyFailure(stderr, false)).toBe(code)
  })

  it("reports a run during which the proxy refused a hop as url_not_allowed", () => {
    expect(classifyFailure("ERROR: [generic] clip: Unable to download webpage: HTTP Error 403: Forbidden", true)).toBe("url_not_allowed")
  })

  it("ignores warnings when matching", () => {
    expect(classifyFailure("WARNING: [generic] not available offline\nERROR: [generic] x: HTTP Error 500", false)).toBe("transient")
    expect(classifyFailure("WARNING: HTTP Error 503 on a thumbnail\nERROR: [vimeo] 1: This video is private", false)).toBe(
      "media_unavailable"
    )
  })
})

describe("failureMessage", () => {
  it("keeps the reason of the last error without prefixes or the Python cause", () => {
    expect(
      failureMessage(
        "WARNING: x\nERROR: [generic] missing: Unable to download webpage: HTTP Error 404: Not Found (caused by <HTTPError 404>)"
      )
    ).toBe("missing: Unable to download webpage: HTTP Error 404: Not Found")
  })
  it("gives curl's reason rather than yt-dlp's \"curl exited with code N\"", () => {
    expect(failureMessage("curl: (22) The requested URL returned error: 404\n\n\nERROR: curl exited with code 22")).toBe(
      "The requested URL returned error: 404"
    )
  })
})

describe("refusalMessage", () => {
  it("names the address the proxy refused, else the protocol a manifest named", () => {
    expect(refusalMessage([{ message: "127.0.0.1 is a private or reserved address" }], "")).toBe(
      "a request was refused: 127.0.0.1 is a private or reserved address"
    )
    expect(refusalMessage([], 'ERROR: Unable to handle request: Unsupported url scheme: "httpproxy" (urllib, curl_cffi)')).toBe(
      'the media names a "httpproxy:" URI; only http and https URIs are fetched'
    )
  })
})
