import { createRequire } from "node:module"
import { describe, expect, it } from "vitest"
import { isMediaFormat, parseFormatId } from "@mds/shared/domain/media/FormatId"
import { downloadFlags, formatFlags } from "./YtDlpFlags.ts"

// The same flag-to-argv translation youtube-dl-exec applies when it spawns yt-dlp (not in its type declarations).
const { args } = createRequire(import.meta.url)("youtube-dl-exec") as { args: (flags: object) => Array<string> }

const spec = (id: string) => {
  const format = parseFormatId(id)
  if (!isMediaFormat(format)) throw new Error(`not a media format: ${id}`)
  return format
}

describe("formatFlags", () => {
  it("video_best merges best video and audio into mp4, falling back to the best single file", () => {
    expect(formatFlags(spec("video_best"))).toEqual({ format: "bv*+ba/b", formatSort: "ext:mp4:m4a", mergeOutputFormat: "mp4" })
  })
  it("video_<h>p caps the height and lets formats of unknown height through", () => {
    expect(formatFlags(spec("video_720p")).format).toBe("bv*[height<=?720]+ba/b[height<=?720]")
  })
  it("audio ids extract audio, converting for mp3 and m4a", () => {
    expect(formatFlags(spec("audio_best"))).toEqual({ format: "ba/b", extractAudio: true })
    expect(formatFlags(spec("audio_mp3"))).toMatchObject({ extractAudio: true, audioFormat: "mp3" })
    expect(formatFlags(spec("audio_m4a"))).toMatchObject({ extractAudio: true, audioFormat: "m4a" })
  })
})

describe("downloadFlags on the command line", () => {
  const argv = args(downloadFlags(spec("audio_mp3"), "/data/work/job_x", "http://127.0.0.1:4000", "/usr/bin/ffmpeg"))
  it("ignores config files, never follows playlists or runs commands, and uses the proxy", () => {
    expect(argv).toContain("--ignore-config")
    expect(argv).toContain("--no-playlist")
    expect(argv).toContain("--no-exec")
    expect(argv).not.toContain("--exec")
    expect(argv.slice(argv.indexOf("--proxy"), argv.indexOf("--proxy") + 2)).toEqual(["--proxy", "http://127.0.0.1:4000"])
  })
  it("writes to a fixed name inside the job directory and prints progress lines", () => {
    expect(argv.slice(argv.indexOf("--paths"), argv.indexOf("--paths") + 2)).toEqual(["--paths", "/data/work/job_x"])
    expect(argv.slice(argv.indexOf("--output"), argv.indexOf("--output") + 2)).toEqual(["--output", "media.%(ext)s"])
    expect(argv).toContain("--newline")
    expect(argv).toContain("--ffmpeg-location")
  })
  it("fetches the given number of HLS/DASH fragments at once", () => {
    const flags = args(downloadFlags(spec("video_best"), "/w", "http://p", "ffmpeg", 6))
    expect(flags.slice(flags.indexOf("--concurrent-fragments"), flags.indexOf("--concurrent-fragments") + 2)).toEqual([
      "--concurrent-fragments",
      "6"
    ])
  })
  it("prints the chosen media's duration and size before downloading, and the result after", () => {
    const prints = argv.flatMap((arg, i) => (arg === "--print" ? [argv[i + 1]] : []))
    expect(prints).toEqual([
      "video:[mds-info] %(.{duration,filesize,filesize_approx,vcodec,acodec,format_id,is_live,live_status,release_timestamp})j",
      "after_move:[mds-result] %(.{filepath,title,ext,extractor_key})j"
    ])
  })
  it("goes on to print what it knows of a media without formats (a stream that has not begun), which then fails", () => {
    expect(argv).toContain("--ignore-no-formats-error")
  })
  it("backs off between yt-dlp's own retries", () => {
    expect(argv.flatMap((arg, i) => (arg === "--retry-sleep" ? [argv[i + 1]] : []))).toEqual(["http:exp=1:8", "fragment:exp=1:8"])
  })
  it("hands plain HTTP(S) transfers to curl, which fails on HTTP errors and never bypasses the proxy", () => {
    expect(argv.slice(argv.indexOf("--downloader"), argv.indexOf("--downloader") + 2)).toEqual(["--downloader", "http:curl"])
    expect(argv.slice(argv.indexOf("--downloader-args"), argv.indexOf("--downloader-args") + 2)).toEqual([
      "--downloader-args",
      `curl:--fail --noproxy "" --proto =http,https --proto-redir =http,https`
    ])
  })
  it("limits the ffmpeg yt-dlp hands streams to (SAMPLE-AES, some DASH) to network protocols", () => {
    const downloaderArgs = argv.flatMap((arg, i) => (arg === "--downloader-args" ? [argv[i + 1]] : []))
    const ffmpeg = downloaderArgs.find((arg) => arg?.startsWith("ffmpeg_i:"))
    expect(ffmpeg).toBe("ffmpeg_i:-protocol_whitelist https,tls,http,tcp,crypto,hls,httpproxy")
    for (const local of ["file", "data", "concat", "subfile", "pipe", "udp"]) expect(ffmpeg?.split(" ")[1]?.split(",")).not.toContain(local)
  })
  it("leaves a bare ffmpeg command name to PATH lookup", () => {
    expect(args(downloadFlags(spec("video_best"), "/w", "http://p", "ffmpeg"))).not.toContain("--ffmpeg-location")
  })
})
