// A clip of fragmented media by media_id fetches only the clip's fragments, several at once through the egress proxy,
// and is cut locally to the section: a CDN stand-in records the fragments asked for, ffprobe the stored clip.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { probeBytes } from "../../../test/e2e/MediaProbe.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { ensureFragmentedFixtures, fragmentedFacts } from "../../../test/support/FragmentedFixtures.ts"
import { type PacedCdn, startPacedCdn } from "../../../test/support/PacedCdn.ts"
import { completedArtifact, type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

let cdn: PacedCdn
let harness: ExtractorHarness

beforeAll(async () => {
  const fixtures = await ensureFragmentedFixtures()
  // Each first byte waits, so a fragment in flight stays in flight long enough for the next ones to overlap it.
  cdn = await startPacedCdn({ root: fixtures.dir, firstByteMs: 80, bytesPerSecond: 8 * 1024 * 1024 })
  harness = await startExtractorHarness({ EGRESS_ALLOW: cdn.hostPort, CONCURRENT_FRAGMENTS: "4" })
}, 240_000)

afterAll(async () => {
  await harness?.close()
  await cdn?.close()
})

/** A clip of `path` by its media id: the stored clip probed, and the fragments the CDN was asked for meanwhile. */
const clipOf = async (path: string, section: { start: number; end: number; precise: boolean }) => {
  const url = `${cdn.origin}/${path}`
  const { mediaId } = await harness.resolved(url)
  await eventually(
    async () => cdn.inFlight(),
    (inFlight) => inFlight === 0,
    "the resolve's requests to end",
    30_000
  )
  cdn.reset()
  const { projectId, jobId } = await harness.queueJob(url, "video_best", mediaId, "generic", undefined, { section })
  const artifact = completedArtifact(await harness.waitForEnd(projectId, jobId, 180_000))
  const probed = await probeBytes(await harness.artifactBytes(artifact.key), ".mp4")
  return { artifact, probed, asked: [...cdn.fragmentsAsked()].sort(), maxInFlight: cdn.maxInFlight() }
}

/** The one-second fragments a window overlaps, numbered from `first`. */
const seconds = (from: number, to: number, first: number) => Array.from({ length: to - from }, (_, i) => from + i + first)

describe("clips of fragmented media", () => {
  it("HLS, keyframe cuts: only the clip's segments, several in flight, the clip lasts the section", async () => {
    const { artifact, probed, asked, maxInFlight } = await clipOf("hls/index.m3u8", { start: 20, end: 30, precise: false })
    expect(asked).toEqual(
      seconds(20, 30, 0)
        .map((n) => `/hls/seg${n}.ts`)
        .sort()
    )
    expect(maxInFlight).toBeGreaterThan(1)
    expect(maxInFlight).toBeLessThanOrEqual(4)
    expect(Math.abs(probed.durationSeconds - 10), `duration ${probed.durationSeconds}`).toBeLessThanOrEqual(0.5)
    expect(probed.codecTypes).toEqual(expect.arrayContaining(["video", "audio"]))
    expect(artifact.mimeType).toBe("video/mp4")
  })

  it("DASH with separate audio, a precise cut inside fragments: both parts' init and overlapping fragments only", async () => {
    const { probed, asked, maxInFlight } = await clipOf("dash/manifest.mpd", { start: 20.5, end: 27.5, precise: true })
    // Fragments are numbered from 1: 20.5-27.5 s overlaps the 21st to the 28th of each representation.
    const chunks = (stream: number) => [
      `/dash/init-stream${stream}.m4s`,
      ...seconds(20, 28, 1).map((n) => `/dash/chunk-stream${stream}-${String(n).padStart(5, "0")}.m4s`)
    ]
    expect(asked).toEqual([...chunks(0), ...chunks(1)].sort())
    expect(maxInFlight).toBeGreaterThan(1)
    expect(maxInFlight).toBeLessThanOrEqual(4)
    expect(Math.abs(probed.durationSeconds - 7), `duration ${probed.durationSeconds}`).toBeLessThanOrEqual(0.5)
    expect(probed.codecTypes).toEqual(expect.arrayContaining(["video", "audio"]))
    expect(probed.durationSeconds).toBeLessThan(fragmentedFacts.seconds / 2)
  })
})
