// Extension: what the installed yt-dlp (.tools/venv) says of live streams, read as a resolve records it (describeLive):
// an upcoming stream through a plugin extractor kept in the test tree (its state in a file the test writes) (is_upcoming with its release time until the
// test flips it live), and a direct HLS URL whose manifest has no end (is_live without any page saying so).
import { spawn } from "node:child_process"
import { mkdirSync, writeFileSync } from "node:fs"
import { createServer, type Server } from "node:http"
import { join } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { Effect } from "effect"
import { describeLive } from "../src/ytdlp/describeLive.ts"
import { mediaEntry } from "../src/ytdlp/describeMedia.ts"
import { decodeYtDlpInfo } from "../src/ytdlp/YtDlpInfo.ts"

const REPO_ROOT = join(import.meta.dirname, "..", "..", "..")
const YT_DLP = process.env["YT_DLP_PATH"] ?? join(REPO_ROOT, ".tools", "venv", "bin", "yt-dlp")
const PLUGINS = join(import.meta.dirname, "ytdlp-plugins")
const RELEASE = 1_900_000_000

const segment = (n: number) => `#EXTINF:2.0,\nseg${n}.ts\n`
const LIVE_PLAYLIST = `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:40\n${segment(40)}${segment(41)}${segment(42)}`
const VOD_PLAYLIST = `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-PLAYLIST-TYPE:VOD\n${segment(0)}${segment(1)}#EXT-X-ENDLIST\n`

let server: Server
let origin = ""
/** The stand-in stream's state, where its plugin reads it: the test flips it live. */
const setStream = (live: boolean) => {
  mkdirSync("/tmp/mds-livestandin", { recursive: true })
  writeFileSync("/tmp/mds-livestandin/premiere.json", JSON.stringify({ live, release: RELEASE, hls: `${origin}/live/stream.m3u8` }))
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = request.url ?? ""
    const send = (type: string, body: string) => response.writeHead(200, { "content-type": type }).end(body)
    if (path === "/live/stream.m3u8") return send("application/vnd.apple.mpegurl", LIVE_PLAYLIST)
    if (path === "/vod/stream.m3u8") return send("application/vnd.apple.mpegurl", VOD_PLAYLIST)
    response.writeHead(404).end()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  origin = `http://127.0.0.1:${typeof address === "object" && address !== null ? address.port : 0}`
})

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

/** yt-dlp -J as a resolve runs it (no config, no formats needed), with the test's plugins. */
const resolveInfo = (url: string) =>
  new Promise<string>((resolve, reject) => {
    const child = spawn(YT_DLP, [
      "--ignore-config",
      "--no-cache-dir",
      "--plugin-dirs",
      PLUGINS,
      "-J",
      "--ignore-no-formats-error",
      "--no-playlist",
      url
    ])
    let stdout = ""
    let stderr = ""
    child.stdout.on("data", (chunk) => (stdout += chunk))
    child.stderr.on("data", (chunk) => (stderr += chunk))
    child.on("error", reject)
    child.on("close", (code) => (code === 0 ? resolve(stdout) : reject(new Error(`yt-dlp exited ${code}: ${stderr}`))))
  })

const liveOf = async (url: string) => {
  const info = await Effect.runPromise(decodeYtDlpInfo(await resolveInfo(url)))
  return { live: describeLive(mediaEntry(info)), info }
}

describe("live status from the installed yt-dlp", () => {
  it("a scheduled stream is upcoming with its release time, then live once it began", async () => {
    setStream(false)
    const before = await liveOf(`${origin}/standin-live/premiere`)
    expect(before.live).toEqual({ liveStatus: "is_upcoming", releaseAt: RELEASE * 1000 })
    expect(before.info.formats ?? []).toEqual([])
    setStream(true)
    const after = await liveOf(`${origin}/standin-live/premiere`)
    expect(after.live).toEqual({ liveStatus: "is_live" })
    expect((after.info.formats ?? []).length).toBeGreaterThan(0)
  }, 60_000)

  it("a direct HLS URL without #EXT-X-ENDLIST is live, one with it is not (the generic extractor reads the manifest)", async () => {
    expect((await liveOf(`${origin}/live/stream.m3u8`)).live).toEqual({ liveStatus: "is_live" })
    expect((await liveOf(`${origin}/vod/stream.m3u8`)).live.liveStatus).not.toBe("is_live")
  }, 60_000)
})
