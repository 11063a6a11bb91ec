// Opens a TCP tunnel to a judged address through an operator's upstream proxy: HTTP(S) CONNECT or SOCKS5.
import { connect as tcpConnect, type Socket } from "node:net"
import { connect as tlsConnect } from "node:tls"
import { SocksClient } from "socks"
import type { ResolvedAddress } from "@mds/shared/egress/HostLookup"

/** http://, https:// (TLS to the proxy itself) or socks5:// (socks5h:// too), with optional user:password. */
export type UpstreamProxy = URL

export const UPSTREAM_PROTOCOLS = ["http:", "https:", "socks5:", "socks5h:"] as const

const HANDSHAKE_TIMEOUT_MS = 20_000
const HEAD_LIMIT = 16 * 1024

const defaultPort = (proxy: UpstreamProxy) =>
  proxy.port !== "" ? Number(proxy.port) : proxy.protocol === "https:" ? 443 : proxy.protocol === "http:" ? 80 : 1080

/**
 * The target is the address the egress guard judged, never the name: the upstream proxy cannot be steered to another
 * address by its own DNS. The tunnel carries the client's bytes unchanged (TLS stays end to end).
 */
const authority = (target: ResolvedAddress, port: number) => `${target.family === 6 ? `[${target.address}]` : target.address}:${port}`

const httpTunnel = (proxy: UpstreamProxy, target: ResolvedAddress, port: number): Promise<Socket> =>
  new Promise((resolve, reject) => {
    const options = { host: proxy.hostname.replace(/^\[|\]$/g, ""), port: defaultPort(proxy) }
    const socket: Socket = proxy.protocol === "https:" ? tlsConnect({ ...options, servername: options.host }) : tcpConnect(options)
    const fail = (message: string) => {
      socket.destroy()
      reject(new Error(`upstream proxy ${proxy.host}: ${message}`))
    }
    socket.setTimeout(HANDSHAKE_TIMEOUT_MS, () => fail("no answer to CONNECT"))
    socket.once("error", (error) => fail(error.message))
    const credentials =
      proxy.username === ""
        ? []
        : [
            `Proxy-Authorization: Basic ${Buffer.from(`${decodeURIComponent(proxy.username)}:${decodeURIComponent(proxy.password)}`).toString("base64")}`
          ]
    const head = [`CONNECT ${authority(target, port)} HTTP/1.1`, `Host: ${authority(target, port)}`, ...credentials].join("\r\n")
    socket.once(proxy.protocol === "https:" ? "secureConnect" : "connect", () => socket.write(`${head}\r\n\r\n`))
    let received = Buffer.alloc(0)
    const onData = (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      const end = received.indexOf("\r\n\r\n")
      if (end < 0) {
        if (received.length > HEAD_LIMIT) fail("CONNECT answer too long")
        return
      }
      socket.off("data", onData)
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(received.subarray(0, end).toString("latin1"))?.[1]
      if (status !== "200") return fail(`CONNECT answered ${status ?? "garbage"}`)
      socket.setTimeout(0)
      socket.removeAllListeners("error")
      const rest = received.subarray(end + 4)
      if (rest.length > 0) socket.unshift(rest)
      resolve(socket)
    }
    socket.on("data", onData)
  })

const socksTunnel = async (proxy: UpstreamProxy, target: ResolvedAddress, port: number): Promise<Socket> => {
  const { socket } = await SocksClient.createConnection({
    proxy: {
      host: proxy.hostname.replace(/^\[|\]$/g, ""),
      port: defaultPort(proxy),
      type: 5,
      ...(proxy.username === "" ? {} : { userId: decodeURIComponent(proxy.username), password: decodeURIComponent(proxy.password) })
    },
    command: "connect",
    destination: { host: target.address, port },
    timeout: HANDSHAKE_TIMEOUT_MS
  }).catch((error: unknown) => {
    throw new Error(`upstream proxy ${proxy.host}: ${error instanceof Error ? error.message : String(error)}`)
  })
  return socket
}

export const openTunnel = (proxy: UpstreamProxy, target: ResolvedAddress, port: number): Promise<Socket> =>
  proxy.protocol === "socks5:" || proxy.protocol === "socks5h:" ? socksTunnel(proxy, target, port) : httpTunnel(proxy, target, port)
