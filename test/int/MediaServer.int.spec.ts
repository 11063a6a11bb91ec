// Checks the test media server: status codes, content types, HEAD and Range, and that ffprobe sees the promised streams.
import { execFile } from "node:child_process"
import { resolve } from "node:path"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { fixtureFacts } from "../support/MediaFixtures.ts"
import { clipPage, type MediaServer, startMediaServer } from "../support/MediaServer.ts"

const run = promisify(execFile)

interface ProbeStream {
  readonly codec_type: string
  readonly codec_name: string
  readonly width?: number
  readonly height?: number
}
interface Probe {
  readonly streams: ReadonlyArray<ProbeStream>
  readonly format: { readonly duration: string }
}

const probe = async (url: string): Promise<Probe> => {
  const { stdout } = await run("ffprobe", ["-v", "error", "-print_format", "json", "-show_streams", "-show_format", url])
  return JSON.parse(stdout) as Probe
}

// setup.sh exports YT_DLP_PATH; a bare `npx vitest` falls back to the pinned copy it installs.
const ytDlp = process.env["YT_DLP_PATH"] ?? resolve(".tools/venv/bin/yt-dlp")

const kinds = (p: Probe) => p.streams.map((s) => s.codec_type).sort()

describe("MediaServer", () => {
  let server: MediaServer

  beforeAll(async () => {
    server = await startMediaServer({ throttleBytesPerSecond: 1024 * 1024 })
  })
  afterAll(async () => {
    await server?.close()
  })

  it("serves every media file with its content type and length", async () => {
    const cases: ReadonlyArray<readonly [string, string]> = [
      [server.urls.mp4, "video/mp4"],
      [server.urls.silentMp4, "video/mp4"],
      [server.urls.audio, "audio/mp4"],
      [server.urls.thumbnail, "image/jpeg"],
      [server.urls.hls, "application/vnd.apple.mpegurl"],
      [server.urls.page, "text/html; charset=utf-8"]
    ]
    for (const [url, type] of cases) {
      const res = await fetch(url)
      const body = Buffer.from(await res.arrayBuffer())
      expect(res.status, url).toBe(200)
      expect(res.headers.get("content-type"), url).toBe(type)
      expect(Number(res.headers.get("content-length")), url).toBe(body.length)
      expect(body.length, url).toBeGreaterThan(0)
    }
  })

  it("answers HEAD with headers only", async () => {
    const full = await fetch(server.urls.mp4).then((r) => r.arrayBuffer())
    const res = await fetch(server.urls.mp4, { method: "HEAD" })
    expect(res.status).toBe(200)
    expect(res.headers.get("accept-ranges")).toBe("bytes")
    expect(Number(res.headers.get("content-length"))).toBe(full.byteLength)
    expect((await res.arrayBuffer()).byteLength).toBe(0)
  })

  it("serves byte ranges with 206 and rejects unsatisfiable ones with 416", async () => {
    const full = Buffer.from(await (await fetch(server.urls.mp4)).arrayBuffer())
    const part = await fetch(server.urls.mp4, { headers: { Range: "bytes=100-199" } })
    expect(part.status).toBe(206)
    expect(part.headers.get("content-range")).toBe(`bytes 100-199/${full.length}`)
    expect(Buffer.from(await part.arrayBuffer()).equals(full.subarray(100, 200))).toBe(true)

    const tail = await fetch(server.urls.mp4, { headers: { Range: "bytes=-10" } })
    expect(tail.status).toBe(206)
    expect(Buffer.from(await tail.arrayBuffer()).equals(full.subarray(full.length - 10))).toBe(true)

    const open = await fetch(server.urls.mp4, { headers: { Range: `bytes=${full.length - 5}-` } })
    expect(open.status).toBe(206)
    expect(Number(open.headers.get("content-length"))).toBe(5)
    await open.arrayBuffer()

    const beyond = await fetch(server.urls.mp4, { headers: { Range: `bytes=${full.length}-` } })
    expect(beyond.status).toBe(416)
    expect(beyond.headers.get("content-range")).toBe(`bytes */${full.length}`)
  })

  it("answers 404, 410 and redirects", async () => {
    expect((await fetch(server.urls.notFound)).status).toBe(404)
    expect((await fetch(server.urls.gone)).status).toBe(410)
    expect((await fetch(`${server.origin}/hls/../../etc/passwd`)).status).toBe(404)
    const redirect = await fetch(server.urls.redirectTo(server.urls.mp4), { redirect: "manual" })
    expect(redirect.status).toBe(302)
    expect(redirect.headers.get("location")).toBe(server.urls.mp4)
    const followed = await fetch(server.urls.redirectTo(server.urls.audio))
    expect(followed.status).toBe(200)
    expect(followed.headers.get("content-type")).toBe("audio/mp4")
    await followed.arrayBuffer()
  })

  it("records the paths it was asked for", async () => {
    await fetch(server.urls.thumbnail).then((r) => r.arrayBuffer())
    expect(server.requests).toContain("/media/thumb.jpg")
  })

  it("describes the clip on the watch page", async () => {
    const html = await fetch(server.urls.page).then((r) => r.text())
    expect(html).toContain(`<meta property="og:title" content="${clipPage.title}">`)
    expect(html).toContain(`<meta property="og:video" content="${server.urls.mp4}">`)
    expect(html).toContain(`<meta property="og:image" content="${server.urls.thumbnail}">`)
    const jsonLd = /<script type="application\/ld\+json">(.*?)<\/script>/s.exec(html)?.[1]
    const video = JSON.parse(jsonLd ?? "null") as Record<string, unknown>
    expect(video).toMatchObject({
      "@type": "VideoObject",
      name: clipPage.title,
      author: { name: clipPage.author },
      duration: "PT4S",
      thumbnailUrl: server.urls.thumbnail,
      contentUrl: server.urls.mp4
    })
  })

  it("lets yt-dlp extract the watch page's metadata from its JSON-LD", async () => {
    const { stdout } = await run(ytDlp, ["--dump-json", "--no-warnings", "--no-playlist", server.urls.page])
    const info = JSON.parse(stdout) as Record<string, unknown>
    expect(info).toMatchObject({
      title: clipPage.title,
      uploader: clipPage.author,
      duration: clipPage.durationSeconds,
      thumbnail: server.urls.thumbnail,
      url: server.urls.mp4
    })
  })

  it("serves media ffprobe reads with the promised streams and durations", async () => {
    const clip = await probe(server.urls.mp4)
    expect(kinds(clip)).toEqual(["audio", "video"])
    const video = clip.streams.find((s) => s.codec_type === "video")
    expect(video).toMatchObject({ codec_name: "h264", width: fixtureFacts.clipWidth, height: fixtureFacts.clipHeight })
    expect(clip.streams.find((s) => s.codec_type === "audio")?.codec_name).toBe("aac")
    expect(Number(clip.format.duration)).toBeCloseTo(fixtureFacts.clipSeconds, 0)

    expect(kinds(await probe(server.urls.silentMp4))).toEqual(["video"])
    const audio = await probe(server.urls.audio)
    expect(kinds(audio)).toEqual(["audio"])
    expect(audio.streams[0]?.codec_name).toBe("aac")
    expect((await probe(server.urls.thumbnail)).streams[0]?.codec_name).toBe("mjpeg")
  })

  it("offers two HLS variants, 240p and 360p, each with audio", async () => {
    const master = await fetch(server.urls.hls).then((r) => r.text())
    const resolutions = [...master.matchAll(/RESOLUTION=\d+x(\d+)/g)].map((m) => Number(m[1]))
    expect(resolutions).toEqual([...fixtureFacts.hlsHeights])
    const variants = master.split("\n").filter((line) => line.endsWith(".m3u8"))
    expect(variants).toHaveLength(2)
    for (const variant of variants) {
      const playlist = await fetch(new URL(variant, server.urls.hls)).then((r) => r.text())
      const durations = [...playlist.matchAll(/#EXTINF:([\d.]+)/g)].map((m) => Number(m[1]))
      expect(durations.length).toBeGreaterThanOrEqual(2)
      for (const d of durations) expect(d).toBeLessThanOrEqual(2.1)
    }
    const hls = await probe(new URL(variants[1] ?? "", server.urls.hls).toString())
    expect(kinds(hls)).toEqual(["audio", "video"])
    expect(hls.streams.find((s) => s.codec_type === "video")?.height).toBe(360)
  })

  it("throttles slow.mp4 so a download takes observable time", async () => {
    const started = Date.now()
    const head = await fetch(server.urls.slow, { method: "HEAD" })
    const size = Number(head.headers.get("content-length"))
    expect(size).toBeGreaterThan(2_000_000)
    expect(size).toBeLessThan(3_500_000)
    // A 512 KiB range at 1 MiB/s must take about half a second, not the few milliseconds of a local read.
    const part = await fetch(server.urls.slow, { headers: { Range: "bytes=0-524287" } })
    expect((await part.arrayBuffer()).byteLength).toBe(524_288)
    expect(Date.now() - started).toBeGreaterThanOrEqual(400)
    const slow = await probe(server.urls.slow)
    expect(Number(slow.format.duration)).toBeCloseTo(fixtureFacts.slowSeconds, 0)
  })
})
