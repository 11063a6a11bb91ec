// Output presets through the real extractor, yt-dlp and ffmpeg: codec, container, silence, bitrate and tags, probed.
import { describe, expect, it } from "vitest"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import { probeBytes } from "../../../test/e2e/MediaProbe.ts"
import { clipPage } from "../../../test/support/MediaServer.ts"
import { completedArtifact, mediaAndExtractor } from "./ExtractorHarness.ts"

const stack = mediaAndExtractor()

const download = async (url: string, format: string, options: DownloadOptions) => {
  const { projectId, jobId } = await stack.harness.queueJob(url, format, undefined, undefined, undefined, options)
  const artifact = completedArtifact(await stack.harness.waitForEnd(projectId, jobId, 180_000))
  const ext = artifact.filename.split(".").at(-1) ?? ""
  return { artifact, ext, probed: await probeBytes(await stack.harness.artifactBytes(artifact.key), `.${ext}`) }
}

describe("output presets", () => {
  it("vp9 in webm from an h264 source: converted, Opus sound, webm name and type", async () => {
    const { artifact, ext, probed } = await download(stack.media.urls.mp4, "video_best", { videoCodec: "vp9", container: "webm" })
    expect(probed.codecNames).toEqual(expect.arrayContaining(["vp9", "opus"]))
    expect(probed.formatName).toContain("webm")
    expect([ext, artifact.mimeType]).toEqual(["webm", "video/webm"])
  })

  it("av1 in mkv: only the video is re-encoded, the AAC sound is copied", async () => {
    const { artifact, ext, probed } = await download(stack.media.urls.mp4, "video_best", { videoCodec: "av1", container: "mkv" })
    expect(probed.codecNames).toEqual(expect.arrayContaining(["av1", "aac"]))
    expect([ext, artifact.mimeType]).toEqual(["mkv", "video/x-matroska"])
  })

  it("mute: video without sound, still h264 in mp4", async () => {
    const { artifact, probed } = await download(stack.media.urls.mp4, "video_best", { mute: true })
    expect(probed.codecTypes).toEqual(["video"])
    expect(probed.codecNames).toEqual(["h264"])
    expect(artifact.mimeType).toBe("video/mp4")
  })

  it("audio_bitrate sets the bitrate of converted audio", async () => {
    const low = await download(stack.media.urls.audio, "audio_mp3", { audioBitrate: 64 })
    const high = await download(stack.media.urls.audio, "audio_mp3", { audioBitrate: 256 })
    expect(low.probed.codecNames).toEqual(["mp3"])
    expect(Math.round(low.probed.bitRate / 1000), `bit rate ${low.probed.bitRate}`).toBeLessThanOrEqual(70)
    expect(Math.round(high.probed.bitRate / 1000), `bit rate ${high.probed.bitRate}`).toBeGreaterThanOrEqual(240)
  })

  it("embed_metadata and embed_thumbnail: the title in the tags and the page's thumbnail as cover art", async () => {
    const { probed } = await download(stack.media.urls.page, "video_best", { embedMetadata: true, embedThumbnail: true })
    expect(probed.tags["title"]).toBe(clipPage.title)
    expect(probed.attachedPictures).toBe(1)
    const plain = await download(stack.media.urls.page, "video_best", {})
    expect(plain.probed.attachedPictures).toBe(0)
    expect(plain.probed.tags["title"]).toBeUndefined()
  })
})
