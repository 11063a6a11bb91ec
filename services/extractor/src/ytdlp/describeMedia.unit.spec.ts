import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { describeMedia, needsProbe, probeableUrl } from "./describeMedia.ts"
import type { MediaProbeResult } from "./MediaProbeResult.ts"
import { decodeYtDlpInfo, type YtDlpInfo } from "./YtDlpInfo.ts"

const decode = (value: unknown): YtDlpInfo => Effect.runSync(decodeYtDlpInfo(JSON.stringify(value)))

const probed = (facts: Partial<MediaProbeResult>): MediaProbeResult => ({
  durationSeconds: null,
  hasVideo: false,
  hasAudio: false,
  height: null,
  videoCodec: null,
  audioCodec: null,
  hasCover: false,
  title: null,
  artist: null,
  ...facts
})

/** What the probe finds in a 240p video with sound in `audioCodec` (null: silent). */
const probed240p = (durationSeconds: number, audioCodec: string | null) =>
  probed({ durationSeconds, hasVideo: true, hasAudio: audioCodec !== null, height: 240, audioCodec })

/** Checks that `info` asks for a probe of `url` (the URL asked for), then describes it with these probe findings. */
const describedAfterProbe = (info: YtDlpInfo, url: string, found: MediaProbeResult) => {
  expect(needsProbe(info)).toBe(true)
  expect(probeableUrl(info)).toBe(url)
  return describeMedia(info, found, url)
}

/** A format as yt-dlp lists it: the stream at `url`, its codecs ("none" for a stream it lacks), then any other fields. */
const entry = (
  format_id: string,
  url: string,
  ext: string,
  protocol: string,
  vcodec: string | null,
  acodec: string | null,
  more: Record<string, unknown> = {}
) => ({ format_id, url, ext, protocol, vcodec, acodec, ...more })

/** A generic-extractor answer titled after its id, as yt-dlp gives for a file or manifest without metadata. */
const generic = (id: string, formats: ReadonlyArray<unknown>, more: Record<string, unknown> = {}): YtDlpInfo =>
  decode({ id, title: id, extractor_key: "Generic", ...more, formats })

/** The formats as [id, container]. */
const containers = (d: ReturnType<typeof describeMedia>) => d.formats.map((f) => [f.id, f.container])

/** The converted audio formats every media with sound offers after its audio_best. */
const CONVERTED_AUDIO = [
  ["audio_mp3", "mp3"],
  ["audio_m4a", "m4a"]
]

// Shapes as printed by yt-dlp 2026.10.26 -J (trimmed to the fields we read, plus some we ignore).
const directMp4 = decode({
  id: "clip",
  title: "clip",
  timestamp: 1767225600,
  direct: true,
  extractor: "generic",
  extractor_key: "Generic",
  webpage_url: "https://cdn.example.org/media/clip.mp4",
  original_url: "https://cdn.example.org/media/clip.mp4",
  url: "https://cdn.example.org/media/clip.mp4",
  ext: "mp4",
  vcodec: null,
  acodec: null,
  duration: null,
  formats: [
    {
      format_id: "mp4",
      url: "https://cdn.example.org/media/clip.mp4",
      ext: "mp4",
      vcodec: null,
      protocol: "http",
      video_ext: "mp4",
      audio_ext: "none",
      tbr: null
    }
  ]
})

const hlsMaster = decode({
  id: "master",
  title: "master",
  duration: 6,
  extractor_key: "Generic",
  webpage_url: "https://media.example.org/hls/master.m3u8",
  url: "https://media.example.org/hls/v1/index.m3u8",
  ext: "mp4",
  protocol: "m3u8_native",
  vcodec: "avc1.42c01e",
  acodec: "mp4a.40.2",
  height: 360,
  formats: [
    entry("400", "https://media.example.org/hls/v0/index.m3u8", "mp4", "m3u8_native", "avc1.42c00d", "mp4a.40.2", {
      height: 240,
      width: 320,
      tbr: 400.4
    }),
    entry("730", "https://media.example.org/hls/v1/index.m3u8", "mp4", "m3u8_native", "avc1.42c01e", "mp4a.40.2", {
      height: 360,
      width: 640,
      tbr: 730.4
    })
  ]
})

const vimeoLike = decode({
  id: "76979871",
  title: "The New Vimeo Player (You Know, For Videos)",
  duration: 62.0,
  uploader: "Vimeo Staff",
  uploader_id: "staff",
  uploader_url: "https://vimeo.com/staff",
  webpage_url: "https://vimeo.com/76979871",
  extractor_key: "Vimeo",
  thumbnails: [
    { url: "https://i.vimeocdn.com/video/452001751-640.jpg", width: 640, preference: -1 },
    { url: "https://i.vimeocdn.com/video/452001751-1280.jpg", width: 1280, preference: 0 }
  ],
  formats: [
    { format_id: "hls-fastly_skyfire-audio-high", ext: "mp4", protocol: "m3u8_native", vcodec: "none", acodec: "mp4a.40.2", abr: 128 },
    entry("http-360p", "https://vod.example/360.mp4", "mp4", "https", "avc1", "none", { height: 360 }),
    entry("http-720p", "https://vod.example/720.mp4", "mp4", "https", "avc1", "none", { height: 720 }),
    entry("http-1080p", "https://vod.example/1080.mp4", "mp4", "https", "avc1", "none", { height: 1080 }),
    { format_id: "dash-720p-dup", ext: "mp4", protocol: "http_dash_segments", vcodec: "avc1", acodec: "none", height: 720 }
  ]
})

const soundcloudLike = decode({
  id: "1234",
  title: "Night Drive",
  duration: 183.4,
  uploader: "Synth Artist",
  uploader_id: "998877",
  webpage_url: "https://soundcloud.com/synth/night-drive",
  thumbnail: "https://i1.sndcdn.com/artworks-abc-t500x500.jpg",
  extractor_key: "Soundcloud",
  formats: [
    { format_id: "hls_opus_64", ext: "opus", protocol: "m3u8_native", vcodec: "none", acodec: "opus", abr: 64 },
    entry("http_mp3_128", "https://cf-media.sndcdn.com/x.mp3", "mp3", "http", "none", "mp3", { abr: 128 })
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
      "video_best",
      "video_1080p",
      "video_720p",
      "video_360p",
      "audio_best",
      "audio_mp3",
      "audio_m4a"
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
    const d = describedAfterProbe(directMp4, "https://cdn.example.org/media/clip.mp4", probed240p(4.02, "aac"))
    expect(d.durationSeconds).toBe(4.02)
    expect(d.type).toBe("video")
    expect(d.title).toBe("clip")
    // No uploader anywhere: the host stands in for the author.
    expect(d.author).toEqual({ name: "cdn.example.org", username: "cdn.example.org" })
    expect(d.thumbnail).toBeNull()
    expect(d.formats.map((f) => f.id)).toEqual(["video_best", "video_240p", "audio_best", "audio_mp3", "audio_m4a"])
  })

  it("offers no audio formats for a silent video", () => {
    const d = describeMedia(directMp4, probed240p(4, null), "https://x.org/a.mp4")
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
      _type: "playlist",
      id: "page",
      title: null,
      webpage_url: "https://blog.example/post",
      entries: [
        {
          id: "x",
          title: null,
          webpage_url: "https://blog.example/files/My%20Talk.webm",
          duration: 30,
          vcodec: "vp9",
          acodec: "opus",
          height: 480,
          ext: "webm",
          url: "https://blog.example/files/My%20Talk.webm"
        }
      ]
    })
    const d = describeMedia(info, null, "https://blog.example/post")
    expect(d.title).toBe("My Talk")
    expect(d.durationSeconds).toBe(30)
    expect(d.formats.map((f) => f.id)).toContain("video_480p")
  })

  it("gives audio formats for an HLS master whose audio is a separate rendition (vcodec none, codec unknown)", () => {
    const info = generic(
      "master",
      [
        entry("group_aud-audio_0", "https://m.example/saudio/index.m3u8", "mp4", "m3u8_native", "none", null, {
          audio_ext: "mp4",
          video_ext: "none"
        }),
        entry("400", "https://m.example/s240/index.m3u8", "mp4", "m3u8_native", "avc1.42c00d", "none", { height: 240 }),
        entry("730", "https://m.example/s360/index.m3u8", "mp4", "m3u8_native", "avc1.42c01e", "none", { height: 360 })
      ],
      { duration: 6 }
    )
    const d = describeMedia(info, null, "https://m.example/master.m3u8")
    expect(containers(d)).toEqual([
      ["video_best", "mp4"],
      ["video_360p", "mp4"],
      ["video_240p", "mp4"],
      ["audio_best", "m4a"],
      ...CONVERTED_AUDIO
    ])
  })

  it("probes a DASH presentation through its manifest (yt-dlp gives it no duration)", () => {
    const info = generic("manifest", [
      entry("2", "https://m.example/dash/manifest.mpd", "m4a", "http_dash_segments", "none", "mp4a.40.2", {
        manifest_url: "https://m.example/dash/manifest.mpd"
      }),
      entry("0", "https://m.example/dash/manifest.mpd", "mp4", "http_dash_segments", "avc1.42c00d", "none", {
        manifest_url: "https://m.example/dash/manifest.mpd",
        height: 240
      })
    ])
    const d = describedAfterProbe(info, "https://m.example/dash/manifest.mpd", probed240p(6, "aac"))
    expect(d.durationSeconds).toBe(6)
    expect(d.mediaUrl).toBe("https://m.example/dash/manifest.mpd")
  })

  it("advertises the container the file will have: a WebM-only source stays WebM, its Opus audio_best is .opus", () => {
    const webm = generic("clip", [
      { format_id: "webm", url: "https://x.example/clip.webm", ext: "webm", protocol: "http", video_ext: "webm", audio_ext: "none" }
    ])
    const d = describeMedia(webm, probed240p(4, "opus"), "https://x.example/clip.webm")
    expect(containers(d)).toEqual([["video_best", "webm"], ["video_240p", "webm"], ["audio_best", "opus"], ...CONVERTED_AUDIO])
  })

  it("prefers an mp4 single file over WebM, and merges into mp4 when the audio is separate", () => {
    const both = generic(
      "p",
      [
        entry("webm-480", "https://x.example/480.webm", "webm", "https", "vp9", "opus", { height: 480 }),
        entry("mp4-360", "https://x.example/360.mp4", "mp4", "https", "avc1", "mp4a.40.2", { height: 360 })
      ],
      { duration: 10 }
    )
    expect(
      describeMedia(both, null, "https://x.example/p")
        .formats.slice(0, 3)
        .map((f) => f.container)
    ).toEqual(["mp4", "mp4", "mp4"])
    const separate = generic(
      "s",
      [
        { format_id: "v", url: "https://x.example/v.webm", ext: "webm", protocol: "https", vcodec: "vp9", acodec: "none", height: 720 },
        { format_id: "a", url: "https://x.example/a.webm", ext: "webm", protocol: "https", vcodec: "none", acodec: "opus", abr: 128 }
      ],
      { duration: 10 }
    )
    expect(containers(describeMedia(separate, null, "https://x.example/s"))).toEqual([
      ["video_best", "mp4"],
      ["video_720p", "mp4"],
      ["audio_best", "opus"],
      ...CONVERTED_AUDIO
    ])
  })

  it("takes a direct MP3's ID3 title and artist, and notes its embedded cover", () => {
    const mp3 = generic(
      "episode",
      [{ format_id: "mpeg", url: "https://pod.example/media/episode.mp3", ext: "mp3", protocol: "http", vcodec: "none", acodec: "mp3" }],
      { webpage_url: "https://pod.example/media/episode.mp3" }
    )
    const d = describeMedia(
      mp3,
      probed({ durationSeconds: 4, hasAudio: true, audioCodec: "mp3", hasCover: true, title: "Episode 1", artist: "Host" }),
      "https://pod.example/media/episode.mp3"
    )
    expect(d.type).toBe("audio")
    expect(d.title).toBe("Episode 1")
    expect(d.author).toEqual({ name: "Host", username: "Host" })
    expect(d.hasCover).toBe(true)
    expect(containers(d)).toEqual([["audio_best", "mp3"], ...CONVERTED_AUDIO])
  })
})
