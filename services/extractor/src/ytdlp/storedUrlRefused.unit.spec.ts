// Which failures of a download from stored info mean the stored media URLs no longer work.
import { describe, expect, it } from "vitest"
import { storedUrlRefused } from "./storedUrlRefused.ts"

describe("storedUrlRefused", () => {
  it.each([
    "ERROR: unable to download video data: HTTP Error 403: Forbidden",
    "[download] Got error: HTTP Error 410: Gone. Retrying fragment 1 (1/4)...\nERROR: fragment 1 not found, unable to continue",
    "curl: (22) The requested URL returned error: 403\nERROR: curl exited with code 22",
    "ERROR: [generic] Signature expired",
    "ERROR: the server said: expired token"
  ])("refused: %j", (stderr) => expect(storedUrlRefused(stderr)).toBe(true))

  it.each([
    "ERROR: unable to download video data: HTTP Error 404: Not Found",
    "ERROR: unable to download video data: HTTP Error 503: Service Unavailable",
    "curl: (28) Operation timed out",
    "ERROR: Requested format is not available"
  ])("not refused: %j", (stderr) => expect(storedUrlRefused(stderr)).toBe(false))
})
