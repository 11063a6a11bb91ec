// An attacker's manifest server (hostile HLS playlists and DASH manifests) and the canary listeners they aim at.
import { readFile } from "node:fs/promises"
import { createServer as createHttpServer } from "node:http"
import { type AddressInfo, createServer, type Server } from "node:net"
import { join } from "node:path"
import { ensureMediaFixtures } from "../../../test/support/MediaFixtures.ts"

/** Loopback listeners outside EGRESS_ALLOW: any connection at all is a breach, so they only count and hang up. */
export interface Canary {
  readonly v4Port: number
  readonly v6Port: number
  connections(): number
  close(): Promise<void>
}

const countingServer = (count: () => void): Server =>
  createServer((socket) => {
    count()
    socket.destroy()
  })

const listen = (server: Server, host: string) =>
  new Promise<number>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, host, () => resolve((server.address() as AddressInfo).port))
  })

export const startCanary = async (): Promise<Canary> => {
  let connections = 0
  const v4 = countingServer(() => connections++)
  const v6 = countingServer(() => connections++)
  const v4Port = await listen(v4, "127.0.0.1")
  const v6Port = await listen(v6, "::1")
  return {
    v4Port,
    v6Port,
    connections: () => connections,
    close: async () => {
      await new Promise<void>((r) => v4.close(() => r()))
      await new Promise<void>((r) => v6.close(() => r()))
    }
  }
}

export interface HostileCase {
  readonly name: string
  /** The URL a client sends: a manifest, possibly disguised as an .mp4. */
  readonly url: string
}

export interface HostileServer {
  readonly hostPort: string
  readonly cases: ReadonlyArray<HostileCase>
  /** How often a case's manifest was fetched: proof that the attack was delivered, not refused up front. */
  fetches(name: string): number
  close(): Promise<void>
}

/** Every way a manifest names the canary: proxy protocols, raw sockets, local protocols, private and odd spellings. */
const targets = (c: Canary): ReadonlyArray<readonly [string, string]> => [
  ["httpproxy-v4", `httpproxy://127.0.0.1:${c.v4Port}/x.ts`],
  ["httpproxy-v6", `httpproxy://[::1]:${c.v6Port}/x.ts`],
  ["crypto-httpproxy", `crypto+httpproxy://127.0.0.1:${c.v4Port}/x.ts`],
  ["tcp", `tcp://127.0.0.1:${c.v4Port}`],
  ["concat", `concat:http://127.0.0.1:${c.v4Port}/a.ts|http://127.0.0.1:${c.v4Port}/b.ts`],
  ["subfile", `subfile,,start,0,end,0,,:http://127.0.0.1:${c.v4Port}/x.ts`],
  ["file", "file:/etc/passwd"],
  ["data", `data:text/plain;base64,${Buffer.from(`http://127.0.0.1:${c.v4Port}/x.ts`).toString("base64")}`],
  ["loopback", `http://127.0.0.1:${c.v4Port}/x.ts`],
  ["decimal", `http://2130706433:${c.v4Port}/x.ts`],
  ["hex", `http://0x7f.1:${c.v4Port}/x.ts`],
  ["mapped-v6", `http://[::ffff:127.0.0.1]:${c.v4Port}/x.ts`],
  ["v6-loopback", `http://[::1]:${c.v6Port}/x.ts`]
]

const segment = (origin: string) => `${origin}/seg/seg0.ts`

/** One playlist per place a URI can sit in HLS: segment, key, init section, variant, rendition. */
const hlsPlaylists = (origin: string, target: string): Record<string, string> => ({
  segment: `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXTINF:2.0,\n${segment(origin)}\n#EXTINF:2.0,\n${target}\n#EXT-X-ENDLIST\n`,
  "aes-key": `#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=AES-128,URI="${target}",IV=0x00000000000000000000000000000001\n#EXTINF:2.0,\n${segment(origin)}\n#EXT-X-ENDLIST\n`,
  "sample-aes-key": `#EXTM3U\n#EXT-X-VERSION:5\n#EXT-X-TARGETDURATION:2\n#EXT-X-KEY:METHOD=SAMPLE-AES,URI="${target}",KEYFORMAT="identity"\n#EXTINF:2.0,\n${segment(origin)}\n#EXT-X-ENDLIST\n`,
  "init-section": `#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MAP:URI="${target}"\n#EXTINF:2.0,\n${segment(origin)}\n#EXT-X-ENDLIST\n`,
  variant: `#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x240\n${target}\n#EXT-X-STREAM-INF:BANDWIDTH=600000,RESOLUTION=640x360\n${origin}/hostile/segment-loopback.m3u8\n`,
  rendition: `#EXTM3U\n#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="a",NAME="x",DEFAULT=YES,URI="${target}"\n#EXT-X-STREAM-INF:BANDWIDTH=300000,RESOLUTION=320x240,AUDIO="a"\n${origin}/hostile/segment-loopback.m3u8\n`
})

const dashManifest = (origin: string, target: string) => `<?xml version="1.0"?>
<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" type="static" mediaPresentationDuration="PT4S" minBufferTime="PT2S" profiles="urn:mpeg:dash:profile:isoff-live:2011">
  <Period>
    <AdaptationSet mimeType="video/mp4" segmentAlignment="true">
      <Representation id="v0" bandwidth="300000" width="320" height="240" codecs="avc1.42c00d">
        <BaseURL>${target.replace(/[^/]*$/, "")}</BaseURL>
        <SegmentTemplate initialization="${target}" media="${origin}/seg/seg$Number$.ts" startNumber="0" duration="2" timescale="1"/>
      </Representation>
    </AdaptationSet>
  </Period>
</MPD>
`

/**
 * Serves /hostile/<place>-<target>.m3u8 (and the same body as .mp4, which ffprobe sniffs as a playlist), and
 * /hostile/dash-<target>.mpd (and as .mp4). Real segments are under /seg/, so a playlist is otherwise playable.
 */
export const startHostileServer = async (canary: Canary): Promise<HostileServer> => {
  const fixtures = await ensureMediaFixtures()
  const fetched = new Map<string, number>()
  const bodies = new Map<string, { body: string; type: string }>()
  const server = createHttpServer(async (req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname
    if (path.startsWith("/seg/")) {
      const body = await readFile(join(fixtures.hlsDir, "v0", path.slice("/seg/".length).replace(/[^a-z0-9.]/g, ""))).catch(() => null)
      if (body === null) return void res.writeHead(404).end()
      return void res.writeHead(200, { "content-type": "video/mp2t", "content-length": body.length }).end(body)
    }
    const entry = bodies.get(path)
    if (entry === undefined) return void res.writeHead(404).end()
    fetched.set(path, (fetched.get(path) ?? 0) + 1)
    res.writeHead(200, { "content-type": entry.type }).end(entry.body)
  })
  const port = await listen(server as unknown as Server, "127.0.0.1")
  const origin = `http://127.0.0.1:${port}`
  const cases: Array<HostileCase> = []
  for (const [targetName, target] of targets(canary)) {
    for (const [place, body] of Object.entries(hlsPlaylists(origin, target))) {
      bodies.set(`/hostile/${place}-${targetName}.m3u8`, { body, type: "application/vnd.apple.mpegurl" })
      bodies.set(`/hostile/${place}-${targetName}.mp4`, { body, type: "video/mp4" })
    }
    const dash = dashManifest(origin, target)
    bodies.set(`/hostile/dash-${targetName}.mpd`, { body: dash, type: "application/dash+xml" })
    bodies.set(`/hostile/dash-${targetName}.mp4`, { body: dash, type: "video/mp4" })
  }
  for (const path of bodies.keys()) cases.push({ name: path.slice("/hostile/".length), url: `${origin}${path}` })
  return {
    hostPort: `127.0.0.1:${port}`,
    cases,
    fetches: (name) => fetched.get(`/hostile/${name}`) ?? 0,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      })
  }
}
