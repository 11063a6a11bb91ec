// Clips through the real extractor, yt-dlp and ffmpeg: the stored file holds the asked part, checked with ffprobe.
import { describe, expect, it } from "vitest"
import { probeBytes } from "../../../test/e2e/MediaProbe.ts"
import { fixtureFacts } from "../../../test/support/MediaFixtures.ts"
import { completedArtifact, mediaAndExtractor } from "./ExtractorHarness.ts"

// The slow clip lasts 20 s: a whole-media limit of 10 s would refuse it, a 7 s clip of it is within the limit.
const stack = mediaAndExtractor({ MAX_MEDIA_DURATION_SECONDS: "10" })

const clipOf = async (url: string, format: string, section: { start: number; end: number; precise: boolean }) => {
  const { projectId, jobId } = await stack.harness.queueJob(url, format, undefined, undefined, undefined, { section })
  const artifact = completedArtifact(await stack.harness.waitForEnd(projectId, jobId, 120_000))
  const probed = await probeBytes(await stack.harness.artifactBytes(artifact.key), `.${artifact.filename.split(".").at(-1)}`)
  return { artifact, probed }
}

describe("clips", () => {
  it("precise cuts: the clip lasts end - start within half a second, video and audio", async () => {
    const { artifact, probed } = await clipOf(stack.media.urls.slow, "video_best", { start: 5, end: 12, precise: true })
    expect(Math.abs(probed.durationSeconds - 7), `duration ${probed.durationSeconds}`).toBeLessThanOrEqual(0.5)
    expect(probed.codecTypes).toEqual(expect.arrayContaining(["video", "audio"]))
    expect(artifact.mimeType).toBe("video/mp4")
  })

  it("keyframe cuts: no re-encoding, the clip covers the section and is shorter than the media", async () => {
    const { probed } = await clipOf(stack.media.urls.slow, "video_best", { start: 12, end: 15, precise: false })
    expect(probed.durationSeconds, `duration ${probed.durationSeconds}`).toBeGreaterThanOrEqual(3 - 0.5)
    expect(probed.durationSeconds).toBeLessThan(fixtureFacts.slowSeconds - 1)
  })

  it("a clip of converted audio: mp3 of the section", async () => {
    const { artifact, probed } = await clipOf(stack.media.urls.slow, "audio_mp3", { start: 2, end: 5, precise: true })
    expect(artifact.mimeType).toBe("audio/mpeg")
    expect(probed.codecNames).toEqual(["mp3"])
    expect(Math.abs(probed.durationSeconds - 3), `duration ${probed.durationSeconds}`).toBeLessThanOrEqual(0.5)
  })

  it("a section beyond the duration the page announces fails the job with section_out_of_range", async () => {
    const { projectId, jobId } = await stack.harness.queueJob(stack.media.urls.page, "video_best", undefined, undefined, undefined, {
      section: { start: 10, end: 20, precise: false }
    })
    const events = await stack.harness.waitForEnd(projectId, jobId)
    const last = events.at(-1)
    expect(last?._tag === "JobFailed" && last.error).toMatchObject({ code: "section_out_of_range", retryable: false })
  })
})
