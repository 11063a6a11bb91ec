import { describe, expect, it } from "vitest"
import { parseCurlMeterLine } from "./CurlMeterLine.ts"

describe("parseCurlMeterLine", () => {
  it("reads the received percent and the announced size", () => {
    expect(parseCurlMeterLine(" 45  286M   45  129M    0     0   150M      0  0:00:01  0:00:01 --:--:--  150M")).toEqual({
      percent: 45,
      bytes: 286 * 1024 ** 2
    })
  })
  it("reads every size notation curl prints", () => {
    expect(parseCurlMeterLine("  3 99999    3  3000    0     0   1000      0  0:01:39  0:00:03  0:01:36  1000")?.bytes).toBe(99999)
    expect(parseCurlMeterLine(" 10  1234k   10   123k    0     0   100k      0  0:00:12  0:00:01  0:00:11  100k")?.bytes).toBe(1234 * 1024)
    expect(parseCurlMeterLine(" 50 12.5M   50 6.2M    0     0  1000k      0  0:00:12  0:00:06  0:00:06 1000k")?.bytes).toBe(
      Math.floor(12.5 * 1024 ** 2)
    )
    expect(parseCurlMeterLine("  8  1.2G    8  100M    0     0  50.0M      0  0:00:24  0:00:02  0:00:22 50.0M")?.bytes).toBe(
      Math.floor(1.2 * 1024 ** 3)
    )
  })
  it("has no percent while the size is unknown, but still counts the bytes received", () => {
    expect(parseCurlMeterLine("  0     0    0 12.3M    0     0  6300k      0 --:--:--  0:00:02 --:--:-- 6300k")).toEqual({
      percent: null,
      bytes: Math.floor(12.3 * 1024 ** 2)
    })
  })
  it("ignores the meter's headings and other output", () => {
    expect(parseCurlMeterLine("  % Total    % Received % Xferd  Average Speed   Time    Time     Time  Current")).toBeNull()
    expect(parseCurlMeterLine("                                 Dload  Upload   Total   Spent    Left  Speed")).toBeNull()
    expect(parseCurlMeterLine("curl: (22) The requested URL returned error: 404")).toBeNull()
    expect(parseCurlMeterLine("[download] Destination: media.mp4")).toBeNull()
    expect(parseCurlMeterLine("")).toBeNull()
  })
})
