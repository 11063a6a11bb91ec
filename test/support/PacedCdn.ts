// A CDN stand-in on loopback: serves a directory, waits a set time before each first byte, holds each response to a
// set rate, and counts the requests it has in flight at once.
import { readFile } from "node:fs/promises"
import { createServer, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { extname, join, normalize } from "node:path"

export interface PacedCdnOptions {
  /** Served at /; nothing outside it is. */
  readonly root: string
  /** Wait before the first byte of every response. */
  readonly firstByteMs: number
  /** Bytes per second each response is held to; null: as fast as the socket takes them. */
  readonly bytesPerSecond: number | null
}

export interface PacedCdn {
  readonly origin: string
  readonly hostPort: string
  /** Fragments (media segments, not manifests) being answered now, each counted once however often it is asked for. */
  inFlight(): number
  /**
   * The most distinct fragments answered at once since the last reset (or the start): a fragment a client asks for
   * again while the first answer is still being written (a retry) is one fragment. Manifests are left out: the
   * extractor fetches an HLS master and its media playlists side by side to store them with the resolve, which says
   * nothing about how many fragments a download fetches at once.
   */
  maxInFlight(): number
  /** How many requests were answered since the last reset. */
  requests(): number
  /** The fragment paths asked for since the last reset, each once, in the order first asked. */
  fragmentsAsked(): ReadonlyArray<string>
  reset(): void
  close(): Promise<void>
}

const contentTypes: Record<string, string> = {
  ".m3u8": "application/vnd.apple.mpegurl",
  ".ts": "video/mp2t",
  ".mpd": "application/dash+xml",
  ".m4s": "video/iso.segment",
  ".mp4": "video/mp4",
  ".bin": "application/octet-stream"
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const TICK_MS = 20

/** Writes `body` in slices of one tick's worth of the rate, one slice per tick. */
const writePaced = async (res: ServerResponse, body: Buffer, bytesPerSecond: number | null) => {
  if (bytesPerSecond === null) return void res.end(body)
  const slice = Math.max(1, Math.floor((bytesPerSecond * TICK_MS) / 1000))
  const started = performance.now()
  for (let offset = 0; offset < body.length; offset += slice) {
    if (res.destroyed) return
    // The last slice ends the answer at once: the client holds every byte then, so a pause after it would count the
    // fragment as in flight while the client already fetches the next one (a DASH run at 4 showed 5).
    if (offset + slice >= body.length) return void res.end(body.subarray(offset))
    if (!res.write(body.subarray(offset, offset + slice))) await new Promise((r) => res.once("drain", r))
    // Paced against the start, so timer lateness does not add up over a long body.
    const due = started + ((offset + slice) / bytesPerSecond) * 1000
    const wait = due - performance.now()
    if (wait > 0) await sleep(wait)
  }
  res.end()
}

export const startPacedCdn = async (options: PacedCdnOptions): Promise<PacedCdn> => {
  /** Fragment path -> answers being written for it. */
  const answering = new Map<string, number>()
  let inFlight = 0
  let maxInFlight = 0
  let requests = 0
  const asked = new Set<string>()
  const cache = new Map<string, Buffer>()
  const server = createServer((req, res) => {
    requests++
    const pathname = new URL(req.url ?? "/", "http://cdn").pathname
    const fragment = !/\.(m3u8|mpd)$/u.test(pathname)
    if (fragment) {
      asked.add(pathname)
      answering.set(pathname, (answering.get(pathname) ?? 0) + 1)
      inFlight = answering.size
      maxInFlight = Math.max(maxInFlight, inFlight)
    }
    let done = false
    const finish = () => {
      if (done) return
      done = true
      if (!fragment) return
      const left = (answering.get(pathname) ?? 1) - 1
      if (left === 0) answering.delete(pathname)
      else answering.set(pathname, left)
      inFlight = answering.size
    }
    res.once("close", finish)
    const path = normalize(decodeURIComponent(new URL(req.url ?? "/", "http://cdn").pathname))
    const file = join(options.root, path)
    void (async () => {
      await sleep(options.firstByteMs)
      const body = cache.get(file) ?? (await readFile(file).catch(() => null))
      if (body === null || !file.startsWith(options.root)) return void res.writeHead(404).end()
      cache.set(file, body)
      res.writeHead(200, {
        "content-type": contentTypes[extname(file)] ?? "application/octet-stream",
        "content-length": String(body.length)
      })
      await writePaced(res, body, options.bytesPerSecond)
      finish()
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    inFlight: () => inFlight,
    maxInFlight: () => maxInFlight,
    requests: () => requests,
    fragmentsAsked: () => [...asked],
    reset: () => {
      maxInFlight = inFlight
      requests = 0
      asked.clear()
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
