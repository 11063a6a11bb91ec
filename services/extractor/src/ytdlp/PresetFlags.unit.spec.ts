// The yt-dlp flags of output presets.
import { describe, expect, it } from "vitest"
import { presetFlags } from "./PresetFlags.ts"

const video = { kind: "video", height: 720 } as const

describe("presetFlags", () => {
  it("adds nothing to a plain download", () => expect(presetFlags(video, undefined)).toEqual({}))
  it("prefers the platform's stream of the asked codec", () => {
    expect(presetFlags(video, { videoCodec: "h264" })).toEqual({ formatSort: "vcodec:h264,ext:mp4:m4a" })
    expect(presetFlags(video, { videoCodec: "av1", container: "mkv" })).toEqual({ formatSort: "vcodec:av01", mergeOutputFormat: "mkv" })
    expect(presetFlags(video, { container: "webm" })).toEqual({ formatSort: "vcodec:vp9", mergeOutputFormat: "mkv" })
  })
  it("mute selects video-only streams within the height", () =>
    expect(presetFlags(video, { mute: true })).toEqual({ format: "bv*[height<=?720]/b[height<=?720]" }))
  it("audio bitrate sets the conversion quality; embedding flags pass through", () =>
    expect(presetFlags({ kind: "audio", codec: "mp3" }, { audioBitrate: 96, embedMetadata: true, embedThumbnail: true })).toEqual({
      audioQuality: "96K",
      embedMetadata: true,
      embedThumbnail: true,
      convertThumbnails: "jpg"
    }))
})
