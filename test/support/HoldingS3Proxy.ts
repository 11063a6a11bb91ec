// An HTTP proxy in front of an S3 server (moto) that can hold the upload of chosen keys: the PUT's body is read, no
// answer is given until the test releases it (then the connection is dropped), so a test can kill the uploader while
// its object is half sent. Every other request goes through unchanged.
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"

export interface HoldingS3Proxy {
  /** "http://127.0.0.1:PORT", the endpoint to give a destination. */
  readonly endpoint: string
  /** "127.0.0.1:PORT", for EGRESS_ALLOW. */
  readonly hostPort: string
  /** Holds every PUT whose decoded path ends with `suffix` from now on (null: hold nothing). */
  holdPutsEndingWith(suffix: string | null): void
  /** Resolves with the decoded path of the next held PUT once its first body bytes arrived. */
  nextHeld(): Promise<string>
  /** Drops the connections of the held PUTs (their sender is gone or must see a failure). */
  releaseHeld(): void
  close(): Promise<void>
}

export const startHoldingS3Proxy = async (target: string): Promise<HoldingS3Proxy> => {
  const upstream = new URL(target)
  let holdSuffix: string | null = null
  const held: Array<Socket> = []
  const waiters: Array<(path: string) => void> = []
  const heldPaths: Array<string> = []

  const forward = (req: IncomingMessage, res: ServerResponse) => {
    const out = request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: req.headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers)
        answer.pipe(res)
      }
    )
    out.on("error", () => res.destroy())
    req.pipe(out)
  }

  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? "/", "http://proxy").pathname)
    if (req.method === "PUT" && holdSuffix !== null && path.endsWith(holdSuffix)) {
      held.push(req.socket)
      req.once("data", () => {
        const waiter = waiters.shift()
        if (waiter === undefined) heldPaths.push(path)
        else waiter(path)
      })
      req.resume()
      return
    }
    forward(req, res)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    endpoint: `http://127.0.0.1:${port}`,
    hostPort: `127.0.0.1:${port}`,
    holdPutsEndingWith: (suffix) => {
      holdSuffix = suffix
    },
    nextHeld: () => {
      const ready = heldPaths.shift()
      return ready === undefined ? new Promise((resolve) => waiters.push(resolve)) : Promise.resolve(ready)
    },
    releaseHeld: () => {
      for (const socket of held.splice(0)) socket.destroy()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of held.splice(0)) socket.destroy()
        server.closeAllConnections()
        server.close(() => resolve())
      })
  }
}
