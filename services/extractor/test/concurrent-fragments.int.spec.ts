// HLS and DASH downloads fetch several fragments at once through the egress proxy, as many as the platform's setting
// and its connection budget allow: a CDN stand-in counts the requests it answers at once.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ensureFragmentedFixtures } from "../../../test/support/FragmentedFixtures.ts"
import { type PacedCdn, startPacedCdn } from "../../../test/support/PacedCdn.ts"
import { completedArtifact, type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"
import { eventually } from "../../../test/support/Eventually.ts"

let cdn: PacedCdn
let harness: ExtractorHarness

beforeAll(async () => {
  const fixtures = await ensureFragmentedFixtures()
  // Each first byte waits, so a fragment in flight stays in flight long enough for the next ones to overlap it.
  cdn = await startPacedCdn({ root: fixtures.dir, firstByteMs: 80, bytesPerSecond: 8 * 1024 * 1024 })
  harness = await startExtractorHarness({
    EGRESS_ALLOW: cdn.hostPort,
    CONCURRENT_FRAGMENTS: "4",
    // A platform that bans parallel connections, and one whose fleet-wide budget is smaller than its setting.
    PLATFORM_CONCURRENT_FRAGMENTS: "vimeo=1",
    PLATFORM_MAX_CONNECTIONS: "dailymotion=2"
  })
}, 240_000)

afterAll(async () => {
  await harness?.close()
  await cdn?.close()
})

/** Downloads `path` from the CDN as a job of `platform` (by URL, or by the media id of a resolve) and returns the most requests in flight. */
const maxInFlightOf = async (path: string, platform: string, byMediaId = false) => {
  const url = `${cdn.origin}/${path}`
  const mediaId = byMediaId ? (await harness.resolved(url)).mediaId : undefined
  // A request the previous download left (a connection its proxy keeps writing after yt-dlp closed it) would count here.
  await eventually(
    async () => cdn.inFlight(),
    (inFlight) => inFlight === 0,
    "the previous download's requests to end",
    30_000
  )
  cdn.reset()
  const { projectId, jobId } = await harness.queueJob(url, "video_best", mediaId, platform)
  const artifact = completedArtifact(await harness.waitForEnd(projectId, jobId, 180_000))
  expect(artifact.sizeBytes).toBeGreaterThan(1_000_000)
  return cdn.maxInFlight()
}

describe("concurrent fragments", () => {
  it("an HLS download by url has several fragment requests in flight at once, at most the setting", async () => {
    const inFlight = await maxInFlightOf("hls/index.m3u8", "generic")
    expect(inFlight).toBeGreaterThan(1)
    expect(inFlight).toBeLessThanOrEqual(4)
  })

  it("a DASH download by media_id (video and audio parts) does too", async () => {
    const inFlight = await maxInFlightOf("dash/manifest.mpd", "generic", true)
    expect(inFlight).toBeGreaterThan(1)
    expect(inFlight).toBeLessThanOrEqual(4)
  })

  it("a platform set to 1 fetches one fragment at a time", async () => {
    expect(await maxInFlightOf("hls/index.m3u8", "vimeo")).toBe(1)
  })

  it("a platform's connection budget caps the fragments of a run", async () => {
    // The run may fetch 4 at once (CONCURRENT_FRAGMENTS) but the budget grants 2: never more than 2 in flight. Whether
    // two fragments happen to overlap is the CDN's timing, not the cap, so only the cap is asserted.
    const inFlight = await maxInFlightOf("hls/index.m3u8", "dailymotion")
    expect(inFlight).toBeGreaterThanOrEqual(1)
    expect(inFlight).toBeLessThanOrEqual(2)
  })
})
