// A local HTTP forward proxy (absolute-form requests and CONNECT) that lets yt-dlp and ffmpeg reach only permitted addresses.
import { createServer, type IncomingHttpHeaders, request as httpRequest } from "node:http"
import { type AddressInfo, connect as tcpConnect, type Socket } from "node:net"
import { Effect, Exit } from "effect"
import type { EgressPolicyShape, ResolvedAddress } from "@mds/shared/egress/EgressPolicy"

export interface EgressRefusal {
  readonly target: string
  readonly message: string
}

export interface EgressProxy {
  /** e.g. http://127.0.0.1:41234, for `--proxy` and ffmpeg's `-http_proxy`. */
  readonly url: string
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

const forwardHeaders = (headers: IncomingHttpHeaders): IncomingHttpHeaders =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name.toLowerCase())))

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

export const startEgressProxy = async (policy: EgressPolicyShape): Promise<EgressProxy> => {
  const refusals: Array<EgressRefusal> = []
  const sockets = new Set<Socket>()

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
    void judge(url.hostname, port).then((verdict) => {
      if (verdict._tag !== "connect") {
        res.writeHead(verdict._tag === "refused" ? 403 : 502, { "content-type": "text/plain" }).end(verdict.message)
        return
      }
      // Connect to the address judged above; the Host header keeps the name for virtual hosting.
      const upstream = httpRequest({
        host: verdict.target.address,
        family: verdict.target.family,
        port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: forwardHeaders(req.headers),
        setHost: false
      })
      upstream.on("response", (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardHeaders(answer.headers))
        answer.pipe(res)
      })
      upstream.on("error", (error) => {
        if (!res.headersSent) res.writeHead(502, { "content-type": "text/plain" }).end(error.message)
        else res.destroy()
      })
      req.pipe(upstream)
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
      const upstream = tcpConnect({ host: verdict.target.address, port: authority.port, family: verdict.target.family })
      sockets.add(upstream)
      upstream.on("close", () => sockets.delete(upstream))
      upstream.once("connect", () => {
        client.write("HTTP/1.1 200 Connection Established\r\n\r\n")
        if (head.length > 0) upstream.write(head)
        upstream.pipe(client)
        client.pipe(upstream)
      })
      upstream.on("error", () => {
        if (upstream.connecting) client.end("HTTP/1.1 502 Bad Gateway\r\n\r\n")
        else client.destroy()
      })
      client.on("close", () => upstream.destroy())
    })
  })

  server.on("connection", (socket: Socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject)
    server.listen(0, "127.0.0.1", () => resolve())
  })
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}`,
    refusals,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}

/** The proxy as a scoped resource: started for one yt-dlp/ffmpeg run and closed after it. */
export const egressProxy = (policy: EgressPolicyShape) =>
  Effect.acquireRelease(
    Effect.promise(() => startEgressProxy(policy)),
    (proxy) => Effect.promise(() => proxy.close())
  )
