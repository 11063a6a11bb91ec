import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { describeMedia, needsProbe, probeableUrl } from "./describeMedia.ts"
import { decodeYtDlpInfo, type YtDlpInfo } from "./YtDlpInfo.ts"

const decode = (value: unknown): YtDlpInfo => Effect.runSync(decodeYtDlpInfo(JSON.stringify(value)))

// Shapes as printed by yt-dlp 2026.10.26 -J (trimmed to the fields we read, plus some we ignore).
const directMp4 = decode({
  id: "clip", title: "clip", timestamp: 1767225600, direct: true, extractor: "generic", extractor_key: "Generic",
  webpage_url: "https://cdn.example.org/media/clip.mp4", original_url: "https://cdn.example.org/media/clip.mp4",
  url: "https://cdn.example.org/media/clip.mp4", ext: "mp4", vcodec: null, acodec: null, duration: null,
  formats: [{ format_id: "mp4", url: "https://cdn.example.org/media/clip.mp4", ext: "mp4", vcodec: null, protocol: "http", video_ext: "mp4", audio_ext: "none", tbr: null }]
})

const hlsMaster = decode({
  id: "master", title: "master", duration: 6, extractor_key: "Generic", webpage_url: "https://media.example.org/hls/master.m3u8",
  url: "https://media.example.org/hls/v1/index.m3u8", ext: "mp4", protocol: "m3u8_native", vcodec: "avc1.42c01e", acodec: "mp4a.40.2", height: 360,
  formats: [
    { format_id: "400", url: "https://media.example.org/hls/v0/index.m3u8", ext: "mp4", protocol: "m3u8_native", vcodec: "avc1.42c00d", acodec: "mp4a.40.2", height: 240, width: 320, tbr: 400.4 },
    { format_id: "730", url: "https://media.example.org/hls/v1/index.m3u8", ext: "mp4", protocol: "m3u8_native", vcodec: "avc1.42c01e", acodec: "mp4a.40.2", height: 360, width: 640, tbr: 730.4 }
  ]
})

const vimeoLike = decode({
  id: "76979871", title: "The New Vimeo Player (You Know, For Videos)", duration: 62.0, uploader: "Vimeo Staff", uploader_id: "staff",
  uploader_url: "https://vimeo.com/staff", webpage_url: "https://vimeo.com/76979871", extractor_key: "Vimeo",
  thumbnails: [
    { url: "https://i.vimeocdn.com/video/452001751-640.jpg", width: 640, preference: -1 },
    { url: "https://i.vimeocdn.com/video/452001751-1280.jpg", width: 1280, preference: 0 }
  ],
  formats: [
    { format_id: "hls-fastly_skyfire-audio-high", ext: "mp4", protocol: "m3u8_native", vcodec: "none", acodec: "mp4a.40.2", abr: 128 },
    { format_id: "http-360p", url: "https://vod.example/360.mp4", ext: "mp4", protocol: "https", vcodec: "avc1", acodec: "none", height: 360 },
    { format_id: "http-720p", url: "https://vod.example/720.mp4", ext: "mp4", protocol: "https", vcodec: "avc1", acodec: "none", height: 720 },
    { format_id: "http-1080p", url: "https://vod.example/1080.mp4", ext: "mp4", protocol: "https", vcodec: "avc1", acodec: "none", height: 1080 },
    { format_id: "dash-720p-dup", ext: "mp4", protocol: "http_dash_segments", vcodec: "avc1", acodec: "none", height: 720 }
  ]
})

const soundcloudLike = decode({
  id: "1234", title: "Night Drive", duration: 183.4, uploader: "Synth Artist", uploader_id: "998877", webpage_url: "https://soundcloud.com/synth/night-drive",
  thumbnail: "https://i1.sndcdn.com/artworks-abc-t500x500.jpg", extractor_key: "Soundcloud",
  formats: [
    { format_id: "hls_opus_64", ext: "opus", protocol: "m3u8_native", vcodec: "none", acodec: "opus", abr: 64 },
    { format_id: "http_mp3_128", url: "https://cf-media.sndcdn.com/x.mp3", ext: "mp3", protocol: "http", vcodec: "none", acodec: "mp3", abr: 128 }
  ]
})

describe("describeMedia", () => {
  it("maps a curated platform's info: author, thumbnail by preference, each distinct height once", () => {
    const d = describeMedia(vimeoLike, null, "https://vimeo.com/76979871")
    expect(d.type).toBe("video")
    expect(d.title).toBe("The New Vimeo Player (You Know, For Videos)")
    expect(d.durationSeconds).toBe(62)
    expect(d.author).toEqual({ name: "Vimeo Staff", username: "staff" })
    expect(d.thumbnail).toBe("https://i.vimeocdn.com/video/452001751-1280.jpg")
    expect(d.formats.map((f) => f.id)).toEqual([
      "video_best", "video_1080p", "video_720p", "video_360p", "audio_best", "audio_mp3", "audio_m4a"
    ])
    expect(d.formats[0]).toEqual({ id: "video_best", type: "video", quality: "1080p", container: "mp4" })
    expect(d.formats.find((f) => f.id === "audio_mp3")).toEqual({ id: "audio_mp3", type: "audio", quality: "192k", container: "mp3" })
    expect(needsProbe(vimeoLike)).toBe(false)
  })

  it("maps an audio-only platform to audio formats only, container from the best codec", () => {
    const d = describeMedia(soundcloudLike, null, "https://soundcloud.com/synth/night-drive")
    expect(d.type).toBe("audio")
    expect(d.formats.map((f) => f.id)).toEqual(["audio_best", "audio_mp3", "audio_m4a"])
    expect(d.formats[0]?.container).toBe("opus")
    expect(d.author).toEqual({ name: "Synth Artist", username: "998877" })
  })

  it("asks for a probe of a direct file and takes duration, streams and height from it", () => {
    expect(needsProbe(directMp4)).toBe(true)
    expect(probeableUrl(directMp4)).toBe("https://cdn.example.org/media/clip.mp4")
    const d = describeMedia(directMp4, { durationSeconds: 4.02, hasVideo: true, hasAudio: true, height: 240 }, "https://cdn.example.org/media/clip.mp4")
    expect(d.durationSeconds).toBe(4.02)
    expect(d.type).toBe("video")
    expect(d.title).toBe("clip")
    // No uploader anywhere: the host stands in for the author.
    expect(d.author).toEqual({ name: "cdn.example.org", username: "cdn.example.org" })
    expect(d.thumbnail).toBeNull()
    expect(d.formats.map((f) => f.id)).toEqual(["video_best", "video_240p", "audio_best", "audio_mp3", "audio_m4a"])
  })

  it("offers no audio formats for a silent video", () => {
    const d = describeMedia(directMp4, { durationSeconds: 4, hasVideo: true, hasAudio: false, height: 240 }, "https://x.org/a.mp4")
    expect(d.formats.map((f) => f.id)).toEqual(["video_best", "video_240p"])
  })

  it("maps an HLS master without probing: heights from the variants, the best variant playlist for thumbnails", () => {
    expect(needsProbe(hlsMaster)).toBe(false)
    expect(probeableUrl(hlsMaster)).toBe("https://media.example.org/hls/v1/index.m3u8")
    const d = describeMedia(hlsMaster, null, "https://media.example.org/hls/master.m3u8")
    expect(d.durationSeconds).toBe(6)
    expect(d.formats.map((f) => f.id)).toEqual(["video_best", "video_360p", "video_240p", "audio_best", "audio_mp3", "audio_m4a"])
  })

  it("takes the first entry of a playlist answer and falls back to the file name for a missing title", () => {
    const info = decode({
      _type: "playlist", id: "page", title: null, webpage_url: "https://blog.example/post",
      entries: [{ id: "x", title: null, webpage_url: "https://blog.example/files/My%20Talk.webm", duration: 30, vcodec: "vp9", acodec: "opus", height: 480, ext: "webm", url: "https://blog.example/files/My%20Talk.webm" }]
    })
    const d = describeMedia(info, null, "https://blog.example/post")
    expect(d.title).toBe("My Talk")
    expect(d.durationSeconds).toBe(30)
    expect(d.formats.map((f) => f.id)).toContain("video_480p")
  })
})
