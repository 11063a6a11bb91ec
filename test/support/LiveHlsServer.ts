// A live HLS stand-in: a media playlist that grows by one 2 s segment every 2 s within a 5-segment window and ends
// (#EXT-X-ENDLIST) once its last segment is out; the segments are made with ffmpeg once per machine.
import { createReadStream } from "node:fs"
import { mkdir } from "node:fs/promises"
import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buildOnce, ffmpeg, sharedUntilFailure } from "./MediaFixtures.ts"

/** Bump the suffix whenever the recipe below changes. */
const liveFixturesDir = join(tmpdir(), "mds-fixtures-live-v1")

export const liveFacts = { segments: 15, segmentSeconds: 2, window: 5 } as const

const generate = async (dir: string) => {
  const seconds = liveFacts.segments * liveFacts.segmentSeconds
  await mkdir(join(dir, "hls"))
  await ffmpeg(
    [
      "-f",
      "lavfi",
      "-i",
      `testsrc=size=320x180:rate=25:duration=${seconds}`,
      "-f",
      "lavfi",
      "-i",
      `sine=frequency=440:sample_rate=44100:duration=${seconds}`,
      "-c:v",
      "libx264",
      "-preset",
      "ultrafast",
      "-pix_fmt",
      "yuv420p",
      "-g",
      "50",
      "-keyint_min",
      "50",
      "-sc_threshold",
      "0",
      "-c:a",
      "aac",
      "-b:a",
      "64k",
      "-f",
      "hls",
      "-hls_time",
      String(liveFacts.segmentSeconds),
      "-hls_playlist_type",
      "vod",
      "-hls_segment_filename",
      "seg%d.ts",
      "index.m3u8"
    ],
    join(dir, "hls")
  )
}

const ensureLiveFixtures = sharedUntilFailure(() => buildOnce(liveFixturesDir, generate, (dir) => join(dir, "hls")))

export interface LiveHlsServer {
  /** "127.0.0.1:PORT", for EGRESS_ALLOW. */
  readonly hostPort: string
  /**
   * Starts a new stream now: its playlist's URL. It lasts `segments` segments of 2 s (at most liveFacts.segments), the
   * first one out at once.
   */
  startStream(segments?: number): string
  close(): Promise<void>
}

/** The playlist of a stream `elapsedMs` after its start: the last `window` segments out so far, ENDLIST once all are. */
export const livePlaylist = (elapsedMs: number, segments: number): string => {
  const { segmentSeconds, window } = liveFacts
  const out = Math.min(segments, 1 + Math.floor(elapsedMs / (segmentSeconds * 1000)))
  const first = Math.max(0, out - window)
  const ended = elapsedMs >= segments * segmentSeconds * 1000
  const lines = ["#EXTM3U", "#EXT-X-VERSION:3", `#EXT-X-TARGETDURATION:${segmentSeconds}`, `#EXT-X-MEDIA-SEQUENCE:${first}`]
  for (let i = first; i < out; i++) lines.push(`#EXTINF:${segmentSeconds}.000000,`, `seg${i}.ts`)
  if (ended) lines.push("#EXT-X-ENDLIST")
  return `${lines.join("\n")}\n`
}

export const startLiveHlsServer = async (): Promise<LiveHlsServer> => {
  const hlsDir = await ensureLiveFixtures()
  const streams = new Map<string, { readonly startedAt: number; readonly segments: number }>()
  const server: Server = createServer((request, response) => {
    const match = /^\/live\/([a-z0-9]+)\/(index\.m3u8|seg(\d+)\.ts)$/.exec(request.url ?? "")
    const stream = match === null ? undefined : streams.get(match[1] ?? "")
    if (match === null || stream === undefined) {
      response.writeHead(404).end()
      return
    }
    if (match[2] === "index.m3u8") {
      const body = livePlaylist(Date.now() - stream.startedAt, stream.segments)
      response.writeHead(200, { "content-type": "application/vnd.apple.mpegurl", "cache-control": "no-cache" }).end(body)
      return
    }
    const index = Number(match[3])
    if (index >= stream.segments) {
      response.writeHead(404).end()
      return
    }
    response.writeHead(200, { "content-type": "video/mp2t" })
    createReadStream(join(hlsDir, `seg${index}.ts`)).pipe(response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  let next = 0
  return {
    hostPort: `127.0.0.1:${port}`,
    startStream: (segments = liveFacts.segments) => {
      const id = `s${next++}`
      streams.set(id, { startedAt: Date.now(), segments: Math.min(segments, liveFacts.segments) })
      return `http://127.0.0.1:${port}/live/${id}/index.m3u8`
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
