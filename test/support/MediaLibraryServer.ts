// A local stand-in for a Jellyfin or Plex server: records every request (method, path with query, headers) and answers
// the statuses the test sets (204 unless told otherwise).
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"

export interface LibraryCall {
  readonly method: string
  readonly url: string
  readonly headers: IncomingHttpHeaders
  readonly at: number
}

export interface MediaLibraryServer {
  readonly url: string
  readonly hostPort: string
  readonly calls: ReadonlyArray<LibraryCall>
  answerWith(status: number): void
  /** Answers these statuses first, one per request, then the one of `answerWith`. */
  answerNext(...statuses: ReadonlyArray<number>): void
  close(): Promise<void>
}

export const startMediaLibraryServer = async (): Promise<MediaLibraryServer> => {
  const calls: Array<LibraryCall> = []
  let status = 204
  const queued: Array<number> = []
  const server = createServer((req, res) => {
    req.resume()
    req.on("end", () => {
      calls.push({ method: req.method ?? "", url: req.url ?? "", headers: req.headers, at: Date.now() })
      res.writeHead(queued.shift() ?? status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    calls,
    answerWith: (next) => {
      status = next
    },
    answerNext: (...statuses) => {
      queued.push(...statuses)
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
