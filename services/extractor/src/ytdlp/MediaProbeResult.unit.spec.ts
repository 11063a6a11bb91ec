// What an ffprobe answer says about media: streams, codecs, tags, covers, and still images that are no video.
import { describe, expect, it } from "vitest"
import { summarizeProbe } from "./MediaProbeResult.ts"

describe("summarizeProbe", () => {
  it("reads an MP3 with a cover: audio, its codec, the ID3 tags, the cover noted but not counted as video", () => {
    const probe = summarizeProbe({
      format: { duration: "4.01", tags: { TITLE: "Episode", artist: "Host" } },
      streams: [
        { codec_type: "audio", codec_name: "mp3" },
        { codec_type: "video", codec_name: "mjpeg", disposition: { attached_pic: 1 } }
      ]
    })
    expect(probe).toEqual({
      durationSeconds: 4.01,
      hasVideo: false,
      hasAudio: true,
      height: null,
      videoCodec: null,
      audioCodec: "mp3",
      hasCover: true,
      title: "Episode",
      artist: "Host"
    })
  })

  it("treats a lone picture (JPEG, PNG) as no video at all", () => {
    const jpeg = summarizeProbe({ streams: [{ codec_type: "video", codec_name: "mjpeg", height: 240 }] })
    expect([jpeg.hasVideo, jpeg.hasAudio, jpeg.height]).toEqual([false, false, null])
  })

  it("keeps a real video, with its height", () => {
    const mp4 = summarizeProbe({
      streams: [
        { codec_type: "video", codec_name: "h264", height: 360 },
        { codec_type: "audio", codec_name: "aac" }
      ]
    })
    expect([mp4.hasVideo, mp4.hasAudio, mp4.height, mp4.videoCodec, mp4.audioCodec]).toEqual([true, true, 360, "h264", "aac"])
  })
})
