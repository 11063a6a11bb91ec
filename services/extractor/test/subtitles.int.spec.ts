// Subtitles through the real extractor and yt-dlp: listed by resolve, embedded per container, delivered as WebVTT.
import { describe, expect, it } from "vitest"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import type { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { probeBytes } from "../../../test/e2e/MediaProbe.ts"
import { subtitleCues } from "../../../test/support/MediaServer.ts"
import { mediaAndExtractor } from "./ExtractorHarness.ts"

const stack = mediaAndExtractor()

const ended = (events: ReadonlyArray<JobEvent>) => events.at(-1)

const download = async (url: string, format: string, options?: DownloadOptions) => {
  const { projectId, jobId } = await stack.harness.queueJob(url, format, undefined, undefined, undefined, options)
  const last = ended(await stack.harness.waitForEnd(projectId, jobId, 120_000))
  if (last?._tag !== "JobCompleted") throw new Error(`expected JobCompleted, got ${JSON.stringify(last)}`)
  const bytes = await stack.harness.artifactBytes(last.artifact.key)
  return { artifact: last.artifact, bytes }
}

/** Subtitle streams' codecs, by ffprobe. */
const subtitleCodecs = async (bytes: Buffer, ext: string) => {
  const probed = await probeBytes(bytes, ext)
  return probed.codecNames.filter((_, i) => probed.codecTypes[i] === "subtitle")
}

describe("subtitles", () => {
  it("resolve lists the page's tracks as manual (the generic extractor keeps no label: the name is the code)", async () => {
    const reply = await stack.harness.resolve(stack.media.urls.subtitledPage)
    expect(reply._tag).toBe("ResolveSucceeded")
    expect(reply._tag === "ResolveSucceeded" && reply.media.subtitles).toEqual([
      { language: "de", name: "de", automatic: false },
      { language: "en", name: "en", automatic: false }
    ])
    const plain = await stack.harness.resolve(stack.media.urls.mp4)
    expect(plain._tag === "ResolveSucceeded" && plain.media).not.toHaveProperty("subtitles")
  })

  it("embeds chosen languages: mov_text in mp4, natively in mkv and webm", async () => {
    const mp4 = await download(stack.media.urls.subtitledPage, "video_best", { subtitles: ["en", "de"] })
    expect(await subtitleCodecs(mp4.bytes, ".mp4")).toEqual(["mov_text", "mov_text"])
    const mkv = await download(stack.media.urls.subtitledPage, "video_best", { subtitles: ["en"], container: "mkv" })
    expect((await subtitleCodecs(mkv.bytes, ".mkv")).length).toBe(1)
    expect(mkv.artifact.mimeType).toBe("video/x-matroska")
    const webm = await download(stack.media.urls.subtitledPage, "video_best", { subtitles: ["de"], container: "webm" })
    expect(await subtitleCodecs(webm.bytes, ".webm")).toEqual(["webvtt"])
  })

  it("delivers one language as a .vtt file (format subtitles_en)", async () => {
    const { artifact, bytes } = await download(stack.media.urls.subtitledPage, "subtitles_en")
    expect(artifact.mimeType).toBe("text/vtt")
    expect(artifact.filename).toMatch(/^MDS Subtitled Clip.*\.en\.vtt$/)
    const text = bytes.toString("utf8")
    expect(text.startsWith("WEBVTT")).toBe(true)
    expect(text).toContain(subtitleCues.en)
  })

  it("a language the media lacks fails the job with subtitles_unavailable", async () => {
    for (const [format, options] of [
      ["subtitles_fr", undefined],
      ["video_best", { subtitles: ["fr"] }]
    ] as const) {
      const { projectId, jobId } = await stack.harness.queueJob(
        stack.media.urls.subtitledPage,
        format,
        undefined,
        undefined,
        undefined,
        options
      )
      const last = ended(await stack.harness.waitForEnd(projectId, jobId, 120_000))
      expect(last?._tag === "JobFailed" && last.error, format).toMatchObject({ code: "subtitles_unavailable", retryable: false })
    }
  })
})
