// A local HTTP forward proxy (absolute-form requests and CONNECT) that lets yt-dlp and ffmpeg reach only permitted addresses.
import { mkdtempSync, rmSync } from "node:fs"
import { createServer, type IncomingMessage } from "node:http"
import { type AddressInfo, connect as tcpConnect, createServer as createNetServer, type Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit } from "effect"
import type { EgressPolicyShape } from "@mds/shared/egress/EgressPolicy"
import type { ResolvedAddress } from "@mds/shared/egress/HostLookup"
import { addOpenProxy, removeOpenProxy } from "../sandbox/OpenProxies.ts"
import { socketRelay } from "./SocketRelay.ts"
import { openTunnel, type UpstreamProxy } from "./UpstreamTunnel.ts"

export interface EgressRefusal {
  readonly target: string
  readonly message: string
}

export interface EgressProxy {
  /**
   * e.g. http://127.0.0.1:41234, for `--proxy` and ffmpeg's `-http_proxy`. Confined children reach the same address
   * inside their network namespace, where a relay bridges it to `socketPath`.
   */
  readonly url: string
  /** The Unix socket the proxy also listens on: the one way out of a confined child's network namespace. */
  readonly socketPath: string
  /** Every hop the proxy refused; a failed run with refusals is reported as url_not_allowed. */
  readonly refusals: ReadonlyArray<EgressRefusal>
  close(): Promise<void>
}

const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-authorization",
  "proxy-authenticate",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade"
])

/**
 * The request head sent upstream for an absolute-form request: origin-form path, the client's end-to-end headers
 * (already validated by node's parser: no CR or LF can be in them) and `Connection: close`, so that the upstream
 * closing its socket marks the end of a response the proxy relays without parsing. A chunked body is re-chunked.
 */
const requestHead = (req: IncomingMessage, url: URL, chunked: boolean): string => {
  const lines = [`${req.method ?? "GET"} ${url.pathname}${url.search} HTTP/${req.httpVersion === "1.0" ? "1.0" : "1.1"}`]
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2) {
    const name = req.rawHeaders[i] ?? ""
    if (!HOP_BY_HOP.has(name.toLowerCase())) lines.push(`${name}: ${req.rawHeaders[i + 1] ?? ""}`)
  }
  if (chunked) lines.push("Transfer-Encoding: chunked")
  lines.push("Connection: close")
  return `${lines.join("\r\n")}\r\n\r\n`
}

/** Sends the request body upstream as node's parser hands it over, re-chunked when the client sent it chunked. */
const forwardBody = (req: IncomingMessage, upstream: Socket, chunked: boolean) => {
  if (!chunked) return void req.pipe(upstream, { end: false })
  req.on("data", (chunk: Buffer) => {
    if (chunk.length === 0) return
    upstream.write(`${chunk.length.toString(16)}\r\n`)
    upstream.write(chunk)
    if (!upstream.write("\r\n")) {
      req.pause()
      upstream.once("drain", () => req.resume())
    }
  })
  req.on("end", () => upstream.write("0\r\n\r\n"))
}

type Verdict =
  | { readonly _tag: "connect"; readonly target: ResolvedAddress }
  | { readonly _tag: "refused"; readonly message: string }
  | { readonly _tag: "unreachable"; readonly message: string }

/** Parses "host:port" of a CONNECT request, IPv6 in brackets. */
const parseAuthority = (authority: string): { host: string; port: number } | null => {
  const match = /^(\[[^\]]+\]|[^:]+):([0-9]{1,5})$/.exec(authority)
  if (match === null) return null
  const port = Number(match[2])
  return port > 0 && port <= 65535 ? { host: match[1] ?? "", port } : null
}

/** One private directory per process for the proxies' sockets (short paths: a socket path has at most 107 bytes). */
let socketDir: string | null = null
const socketDirectory = () => {
  if (socketDir === null) {
    socketDir = mkdtempSync(join(tmpdir(), "mds-egress-"))
    const dir = socketDir
    process.once("exit", () => rmSync(dir, { recursive: true, force: true }))
  }
  return socketDir
}

/**
 * With `upstreamProxy`, every judged hop is tunnelled through the operator's proxy to the judged address instead of
 * connected directly (UpstreamTunnel); the judging is the same either way.
 */
export const startEgressProxy = async (policy: EgressPolicyShape, upstreamProxy: UpstreamProxy | null = null): Promise<EgressProxy> => {
  const refusals: Array<EgressRefusal> = []
  const sockets = new Set<Socket>()
  const relaying = new WeakSet<Socket>()

  const judge = async (host: string, port: number): Promise<Verdict> => {
    const exit = await Effect.runPromiseExit(policy.resolveTarget(host, port))
    if (Exit.isSuccess(exit)) return { _tag: "connect", target: exit.value }
    const error = exit.cause.reasons.find((reason) => reason._tag === "Fail")
    if (error?._tag === "Fail" && error.error._tag === "UrlNotAllowed") {
      refusals.push({ target: `${host}:${port}`, message: error.error.message })
      return { _tag: "refused", message: error.error.message }
    }
    return { _tag: "unreachable", message: error?._tag === "Fail" ? error.error.message : "lookup failed" }
  }

  const server = createServer((req, res) => {
    let url: URL
    try {
      url = new URL(req.url ?? "")
    } catch {
      res.writeHead(400).end("absolute-form request expected")
      return
    }
    if (url.protocol !== "http:") {
      res.writeHead(400).end("only http:// is proxied directly; use CONNECT for https")
      return
    }
    const port = url.port === "" ? 80 : Number(url.port)
    const client = req.socket
    // A pipelined second request on a socket whose response is being relayed raw cannot be answered in order.
    if (relaying.has(client)) return void client.destroy()
    relaying.add(client)
    void judge(url.hostname, port).then((verdict) => {
      if (verdict._tag !== "connect") {
        relaying.delete(client)
        res.writeHead(verdict._tag === "refused" ? 403 : 502, { "content-type": "text/plain" }).end(verdict.message)
        return
      }
      if (client.destroyed) return
      const chunked = req.headers["transfer-encoding"] !== undefined
      if (upstreamProxy !== null) {
        return void viaUpstream(
          upstreamProxy,
          verdict.target,
          port,
          client,
          (tunnel) => {
            tunnel.write(requestHead(req, url, chunked))
            forwardBody(req, tunnel, chunked)
          },
          (message) => {
            relaying.delete(client)
            res.writeHead(502, { "content-type": "text/plain" }).end(message)
          }
        )
      }
      // Connect to the address judged above; the Host header keeps the name for virtual hosting. The response is
      // relayed as bytes, unparsed: the upstream closes after it (Connection: close) and the client socket with it.
      const relay = socketRelay(client)
      const upstream = tcpConnect({ host: verdict.target.address, port, family: verdict.target.family, onread: relay.onread })
      sockets.add(upstream)
      upstream.on("close", () => sockets.delete(upstream))
      relay.attach(upstream)
      upstream.once("connect", () => {
        upstream.write(requestHead(req, url, chunked))
        forwardBody(req, upstream, chunked)
      })
      upstream.on("error", (error) => {
        if (upstream.connecting && !res.headersSent) {
          relaying.delete(client)
          res.writeHead(502, { "content-type": "text/plain" }).end(error.message)
        } else client.destroy()
      })
    })
  })

  server.on("connect", (req, client: Socket, head: Buffer) => {
    sockets.add(client)
    client.on("close", () => sockets.delete(client))
    client.on("error", () => client.destroy())
    const authority = parseAuthority(req.url ?? "")
    if (authority === null) {
      client.end("HTTP/1.1 400 Bad Request\r\n\r\n")
      return
    }
    void judge(authority.host, authority.port).then((verdict) => {
      if (verdict._tag !== "connect") {
        client.end(`HTTP/1.1 ${verdict._tag === "refused" ? "403 Forbidden" : "502 Bad Gateway"}\r\n\r\n`)
        return
      }
      if (client.destroyed) return
      if (upstreamProxy !== null) {
        return void viaUpstream(
          upstreamProxy,
          verdict.target,
          authority.port,
          client,
          (tunnel) => {
            client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
            if (head.length > 0) tunnel.write(head)
            client.pipe(tunnel)
          },
          () => client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n")
        )
      }
      const relay = socketRelay(client)
      const upstream = tcpConnect({
        host: verdict.target.address,
        port: authority.port,
        family: verdict.target.family,
        onread: relay.onread
      })
      sockets.add(upstream)
      upstream.on("close", () => sockets.delete(upstream))
      relay.attach(upstream)
      upstream.once("connect", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
        if (head.length > 0) upstream.write(head)
        client.pipe(upstream)
      })
      upstream.on("error", () => {
        if (upstream.connecting) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n")
        else client.destroy()
      })
    })
  })

  /** Tunnels through the operator's proxy; `ready` writes the first bytes, `failed` answers the client. */
  const viaUpstream = (
    proxy: UpstreamProxy,
    target: ResolvedAddress,
    port: number,
    client: Socket,
    ready: (tunnel: Socket) => void,
    failed: (message: string) => void
  ) =>
    openTunnel(proxy, target, port).then(
      (tunnel) => {
        if (client.destroyed) return void tunnel.destroy()
        sockets.add(tunnel)
        tunnel.on("close", () => sockets.delete(tunnel))
        tunnel.on("error", () => client.destroy())
        client.on("close", () => tunnel.destroy())
        tunnel.pipe(client)
        ready(tunnel)
      },
      (error: unknown) => failed(error instanceof Error ? error.message : String(error))
    )

  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo
  // Connections on the Unix socket are served by the same HTTP server, exactly like TCP ones.
  const socketPath = join(socketDirectory(), `${port}.sock`)
  const unixServer = createNetServer((socket) => server.emit("connection", socket))
  await new Promise<void>((resolve, reject) => {
    unixServer.once("error", reject)
    unixServer.listen(socketPath, () => resolve())
  })

  const url = `http://127.0.0.1:${port}`
  const proxy: EgressProxy = {
    url,
    socketPath,
    refusals,
    close: () => {
      removeOpenProxy(url)
      for (const socket of sockets) socket.destroy()
      return Promise.all([
        new Promise<void>((resolve) => unixServer.close(() => resolve())),
        new Promise<void>((resolve) => server.close(() => resolve()))
      ]).then(() => undefined)
    }
  }
  addOpenProxy(url, socketPath)
  return proxy
}

/** The proxy as a scoped resource: started for one yt-dlp/ffmpeg run and closed after it. */
export const egressProxy = (policy: EgressPolicyShape, upstream: UpstreamProxy | null = null) =>
  Effect.acquireRelease(
    Effect.promise(() => startEgressProxy(policy, upstream)),
    (proxy) => Effect.promise(() => proxy.close())
  )
