import { describe, expect, it } from "vitest"
import type { MediaProbeResult } from "../../ytdlp/MediaProbeResult.ts"
import { withProbedStreams } from "./withProbedStreams.ts"

const URL_ = "http://media.test/clip.mp4"
const probe = (facts: Partial<MediaProbeResult>): MediaProbeResult => ({
  durationSeconds: 12.5,
  hasVideo: true,
  hasAudio: true,
  height: 720,
  videoCodec: "h264",
  audioCodec: "aac",
  hasCover: false,
  title: null,
  artist: null,
  ...facts
})
const direct = { title: "clip", formats: [{ format_id: "mp4", url: URL_, ext: "mp4" }] }

describe("withProbedStreams", () => {
  it("fills in a direct file's codecs, height and the media's duration", () => {
    expect(withProbedStreams(direct, URL_, probe({}))).toEqual({
      title: "clip",
      duration: 12.5,
      formats: [{ format_id: "mp4", url: URL_, ext: "mp4", vcodec: "h264", acodec: "aac", height: 720 }]
    })
  })
  it("says none for a stream the file lacks, so format selection sees an audio-only file as one", () => {
    const filled = withProbedStreams(direct, URL_, probe({ hasVideo: false, height: null, videoCodec: null, audioCodec: "mp3" }))
    expect(filled["formats"]).toEqual([{ format_id: "mp4", url: URL_, ext: "mp4", vcodec: "none", acodec: "mp3" }])
  })
  it("keeps what yt-dlp knew and leaves other formats alone", () => {
    const info = {
      duration: 30,
      formats: [
        { url: URL_, vcodec: "avc1", acodec: null },
        { url: "http://media.test/other.mp4", vcodec: null }
      ]
    }
    expect(withProbedStreams(info, URL_, probe({}))).toEqual({
      duration: 30,
      formats: [
        { url: URL_, vcodec: "avc1", acodec: "aac", height: 720 },
        { url: "http://media.test/other.mp4", vcodec: null }
      ]
    })
  })
  it("fills in a single-file info without a formats list", () => {
    expect(withProbedStreams({ url: URL_, ext: "mp3" }, URL_, probe({ hasVideo: false, height: null, audioCodec: "mp3" }))).toEqual({
      url: URL_,
      ext: "mp3",
      vcodec: "none",
      acodec: "mp3",
      duration: 12.5
    })
  })
  it("changes nothing without a probe, for a manifest probe, or for a still image", () => {
    expect(withProbedStreams(direct, URL_, null)).toBe(direct)
    expect(withProbedStreams(direct, "http://media.test/master.m3u8", probe({}))).toBe(direct)
    expect(withProbedStreams(direct, URL_, probe({ hasVideo: false, hasAudio: false }))).toBe(direct)
  })
})
