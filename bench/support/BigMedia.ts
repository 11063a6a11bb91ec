// A ~300 MB mp4 for the download benchmark (the test clip looped, stream copy: seconds to make) and a plain file server for it.
import { execFile } from "node:child_process"
import { createReadStream } from "node:fs"
import { mkdir, rename, stat } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { promisify } from "node:util"
import { ensureMediaFixtures } from "../../test/support/MediaFixtures.ts"

const run = promisify(execFile)
/** 3,020 copies of the 4 s test clip: about 300 MB. */
const LOOPS = 3_020

export const ensureBigMp4 = async (): Promise<{ path: string; sizeBytes: number }> => {
  const dir = join(tmpdir(), "mds-bench-media-v1")
  const path = join(dir, "big.mp4")
  const existing = await stat(path).catch(() => null)
  if (existing !== null) return { path, sizeBytes: existing.size }
  await mkdir(dir, { recursive: true })
  const fixtures = await ensureMediaFixtures()
  const partial = join(dir, `big.${process.pid}.mp4`)
  await run(process.env["FFMPEG_PATH"] ?? "ffmpeg", [
    "-hide_banner",
    "-loglevel",
    "error",
    "-nostdin",
    "-y",
    "-stream_loop",
    String(LOOPS - 1),
    "-i",
    fixtures.clipMp4,
    "-c",
    "copy",
    "-movflags",
    "+faststart",
    partial
  ])
  await rename(partial, path)
  return { path, sizeBytes: (await stat(path)).size }
}

export interface FileServer {
  readonly url: string
  readonly hostPort: string
  close(): Promise<void>
}

/** Serves one file at /big.mp4 from disk, at full speed, with single byte ranges (as yt-dlp may ask). */
export const serveFile = async (path: string, sizeBytes: number): Promise<FileServer> => {
  const server = createServer((req, res) => {
    if (req.url?.split("?")[0] !== "/big.mp4") return void res.writeHead(404).end()
    const match = /^bytes=(\d+)-(\d*)$/.exec(req.headers.range ?? "")
    const start = match === null ? 0 : Number(match[1])
    const end = match === null || match[2] === "" ? sizeBytes - 1 : Math.min(Number(match[2]), sizeBytes - 1)
    if (start >= sizeBytes) return void res.writeHead(416, { "content-range": `bytes */${sizeBytes}` }).end()
    res.writeHead(match === null ? 200 : 206, {
      "content-type": "video/mp4",
      "content-length": String(end - start + 1),
      "accept-ranges": "bytes",
      ...(match === null ? {} : { "content-range": `bytes ${start}-${end}/${sizeBytes}` })
    })
    if (req.method === "HEAD") return void res.end()
    createReadStream(path, { start, end, highWaterMark: 1024 * 1024 }).pipe(res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/big.mp4`,
    hostPort: `127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
