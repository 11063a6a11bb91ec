import { Schema } from "effect"
import { describe, expect, it } from "vitest"
import { fleetStatusOf, WORKER_SILENT_AFTER_MS } from "./YtDlpFleetStatus.ts"
import { YtDlpReleaseChoice } from "./YtDlpReleaseEvent.ts"

describe("fleetStatusOf", () => {
  it("keeps each extractor's last report: a rejection leaves it on the release it kept", () => {
    const fleet = fleetStatusOf(
      [
        { _tag: "YtDlpReleaseRunning", v: 1, workerId: "b", version: "2026.10.26", at: 1 },
        { _tag: "YtDlpReleaseRunning", v: 1, workerId: "a", version: "2026.10.26", at: 2 },
        { _tag: "YtDlpReleaseActivated", v: 1, workerId: "a", choice: "2026.10.21", version: "2026.10.21", previous: "2026.10.26", at: 3 },
        {
          _tag: "YtDlpReleaseRejected",
          v: 1,
          workerId: "b",
          choice: "stable",
          version: "2026.11.1",
          kept: "2026.10.26",
          reason: "canary failed",
          at: 4
        }
      ],
      10
    )
    expect(fleet).toEqual([
      { workerId: "a", version: "2026.10.21", lastChange: "activated", reason: null, at: 3 },
      { workerId: "b", version: "2026.10.26", lastChange: "rejected", reason: "canary failed", at: 4 }
    ])
  })
})

describe("fleetStatusOf over time", () => {
  it("a periodic report keeps the last change in view; an extractor that stopped reporting is left out", () => {
    const later = 5 + WORKER_SILENT_AFTER_MS
    const fleet = fleetStatusOf(
      [
        { _tag: "YtDlpReleaseRunning", v: 1, workerId: "gone", version: "2026.10.26", at: 1 },
        { _tag: "YtDlpReleaseRunning", v: 1, workerId: "a", version: "2026.10.26", at: 2 },
        {
          _tag: "YtDlpReleaseRejected",
          v: 1,
          workerId: "a",
          choice: "stable",
          version: "2026.11.1",
          kept: "2026.10.26",
          reason: "canary failed",
          at: 3
        },
        { _tag: "YtDlpReleaseRunning", v: 1, workerId: "a", version: "2026.10.26", at: later }
      ],
      later
    )
    expect(fleet).toEqual([{ workerId: "a", version: "2026.10.26", lastChange: "rejected", reason: "canary failed", at: later }])
  })
})

describe("YtDlpReleaseChoice", () => {
  const valid = Schema.is(YtDlpReleaseChoice)
  it("takes channels and versions, nothing a shell or pip could read otherwise", () => {
    expect(["stable", "nightly", "2026.10.26", "2026.11.2.232734.dev0"].every(valid)).toBe(true)
    expect(["latest", "", "2026.10.26; rm -rf /", "--pre", "yt-dlp==2026.10.26"].some(valid)).toBe(false)
  })
})
