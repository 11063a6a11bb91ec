// Local stand-ins for an operator's upstream proxies (HTTP CONNECT and SOCKS5 without auth) that record every tunnel.
import { createServer as createHttpServer } from "node:http"
import { type AddressInfo, connect, createServer, type Server, type Socket } from "node:net"

export interface UpstreamProxyServer {
  /** e.g. http://127.0.0.1:PORT or socks5://127.0.0.1:PORT */
  readonly url: string
  /** "host:port" of every tunnel opened, in order. */
  readonly tunnels: ReadonlyArray<string>
  close(): Promise<void>
}

const listen = async (server: Server | ReturnType<typeof createHttpServer>) => {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  return (server.address() as AddressInfo).port
}

const closer = (server: Server | ReturnType<typeof createHttpServer>, sockets: Set<Socket>) => () =>
  new Promise<void>((resolve) => {
    for (const socket of sockets) socket.destroy()
    server.close(() => resolve())
  })

const splice = (a: Socket, b: Socket, sockets: Set<Socket>) => {
  for (const socket of [a, b]) {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
    socket.on("error", () => (socket === a ? b : a).destroy())
  }
  a.pipe(b)
  b.pipe(a)
}

export const startHttpConnectProxy = async (): Promise<UpstreamProxyServer> => {
  const tunnels: Array<string> = []
  const sockets = new Set<Socket>()
  const server = createHttpServer((_req, res) => res.writeHead(405).end())
  server.on("connect", (req, client: Socket, head: Buffer) => {
    const target = req.url ?? ""
    tunnels.push(target)
    const match = /^\[?([^\]]+)\]?:(\d+)$/.exec(target)
    if (match === null) return void client.end("HTTP/1.1 400 Bad Request\r\n\r\n")
    const upstream = connect({ host: match[1] ?? "", port: Number(match[2]) }, () => {
      client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
      if (head.length > 0) upstream.write(head)
      splice(client, upstream, sockets)
    })
    upstream.on("error", () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n"))
  })
  const port = await listen(server)
  return { url: `http://127.0.0.1:${port}`, tunnels, close: closer(server, sockets) }
}

/** RFC 1928, CONNECT only, "no authentication" only; IPv4, IPv6 and domain targets. */
export const startSocks5Proxy = async (): Promise<UpstreamProxyServer> => {
  const tunnels: Array<string> = []
  const sockets = new Set<Socket>()
  const server = createServer((client) => {
    sockets.add(client)
    client.on("close", () => sockets.delete(client))
    client.on("error", () => client.destroy())
    let buffered = Buffer.alloc(0)
    let greeted = false
    const onData = (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk])
      if (!greeted) {
        if (buffered.length < 2 || buffered.length < 2 + (buffered[1] ?? 0)) return
        buffered = buffered.subarray(2 + (buffered[1] ?? 0))
        greeted = true
        client.write(Buffer.from([5, 0]))
      }
      if (buffered.length < 5) return
      const type = buffered[3]
      const addressLength = type === 1 ? 4 : type === 4 ? 16 : 1 + (buffered[4] ?? 0)
      if (buffered.length < 4 + addressLength + 2) return
      client.off("data", onData)
      const raw = buffered.subarray(4, 4 + addressLength)
      const host =
        type === 1 ? [...raw].join(".") : type === 4 ? (raw.toString("hex").match(/.{4}/g) ?? []).join(":") : raw.subarray(1).toString()
      const port = buffered.readUInt16BE(4 + addressLength)
      const rest = buffered.subarray(4 + addressLength + 2)
      tunnels.push(`${host}:${port}`)
      const upstream = connect({ host, port }, () => {
        client.write(Buffer.from([5, 0, 0, 1, 0, 0, 0, 0, 0, 0]))
        if (rest.length > 0) upstream.write(rest)
        splice(client, upstream, sockets)
      })
      upstream.on("error", () => client.end(Buffer.from([5, 5, 0, 1, 0, 0, 0, 0, 0, 0])))
    }
    client.on("data", onData)
  })
  const port = await listen(server)
  return { url: `socks5://127.0.0.1:${port}`, tunnels, close: closer(server, sockets) }
}
