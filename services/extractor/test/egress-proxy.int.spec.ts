// The egress proxy against a real local HTTP server: CONNECT and absolute-form requests, allowed and refused.
import { createHash, randomBytes } from "node:crypto"
import { createServer, type IncomingHttpHeaders, request, type Server } from "node:http"
import { type AddressInfo, connect, type Socket } from "node:net"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseEgressAllowList } from "@mds/shared/egress/EgressAllowList"
import { makeEgressPolicy } from "@mds/shared/egress/EgressPolicy"
import type { HostLookup } from "@mds/shared/egress/HostLookup"
import { eventually } from "../../../test/support/Eventually.ts"
import { startEgressProxy } from "../src/egress/EgressProxy.ts"

let origin: Server
let port = 0
/** 8 MB of random bytes at /big: relayed through the proxy's reused buffer, they must arrive unchanged. */
const BIG = randomBytes(8 * 1024 * 1024)
const sha = (data: Buffer) => createHash("sha256").update(data).digest("hex")
let lastSeen: { headers: IncomingHttpHeaders; body: string } | null = null
/** The origin's side of the last /big response: how far it got tells whether the relay stopped taking bytes. */
let bigSocket: Socket | null = null
// "rebind.test" has a public and a private record: the proxy must refuse it although the first looks public.
const dns: HostLookup = async (name) =>
  name === "rebind.test"
    ? [
        { address: "93.184.216.34", family: 4 },
        { address: "127.0.0.1", family: 4 }
      ]
    : []

beforeAll(async () => {
  origin = createServer((req, res) => {
    if (req.url === "/big") {
      bigSocket = res.socket
      return void res.end(BIG)
    }
    let body = ""
    req.on("data", (c: Buffer) => (body += c.toString()))
    req.on("end", () => {
      lastSeen = { headers: req.headers, body }
      res.end(`hello ${req.headers.host}`)
    })
  })
  await new Promise<void>((r) => origin.listen(0, "127.0.0.1", () => r()))
  port = (origin.address() as AddressInfo).port
})
afterAll(() => new Promise<void>((r) => origin.close(() => r())))

const viaProxy = (proxyUrl: string, target: string) =>
  new Promise<{ status: number; body: string }>((resolve, reject) => {
    const proxy = new URL(proxyUrl)
    const req = request({ host: proxy.hostname, port: proxy.port, path: target, headers: { host: new URL(target).host } }, (res) => {
      let body = ""
      res.on("data", (c: Buffer) => (body += c.toString()))
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on("error", reject)
    req.end()
  })

const connectVia = (proxyUrl: string, authority: string) =>
  new Promise<number>((resolve, reject) => {
    const proxy = new URL(proxyUrl)
    const req = request({ host: proxy.hostname, port: proxy.port, method: "CONNECT", path: authority })
    req.on("connect", (res, socket) => {
      socket.destroy()
      resolve(res.statusCode ?? 0)
    })
    req.on("error", reject)
    req.end()
  })

/** Runs `use` against an egress proxy over `allowList` (names resolved by the fake DNS), and closes the proxy after. */
const withProxy = async (allowList: string, use: (proxy: Awaited<ReturnType<typeof startEgressProxy>>) => Promise<void>) => {
  const proxy = await startEgressProxy(makeEgressPolicy(parseEgressAllowList(allowList), dns))
  try {
    await use(proxy)
  } finally {
    await proxy.close()
  }
}

describe("EgressProxy", () => {
  it("forwards an allow-listed absolute-form request and a CONNECT", () =>
    withProxy(`127.0.0.1:${port}`, async (proxy) => {
      const answer = await viaProxy(proxy.url, `http://127.0.0.1:${port}/x`)
      expect(answer).toEqual({ status: 200, body: `hello 127.0.0.1:${port}` })
      expect(await connectVia(proxy.url, `127.0.0.1:${port}`)).toBe(200)
      expect(proxy.refusals).toEqual([])
    }))

  it("refuses private targets with 403 and records each refusal", () =>
    withProxy("", async (proxy) => {
      expect((await viaProxy(proxy.url, `http://127.0.0.1:${port}/x`)).status).toBe(403)
      expect(await connectVia(proxy.url, `127.0.0.1:${port}`)).toBe(403)
      expect(await connectVia(proxy.url, `[::1]:${port}`)).toBe(403)
      expect((await viaProxy(proxy.url, `http://rebind.test:${port}/x`)).status).toBe(403)
      expect(proxy.refusals.map((r) => r.target)).toEqual([
        `127.0.0.1:${port}`,
        `127.0.0.1:${port}`,
        `[::1]:${port}`,
        `rebind.test:${port}`
      ])
    }))

  it("answers 502 without recording a refusal when the name does not resolve", () =>
    withProxy("", async (proxy) => {
      expect((await viaProxy(proxy.url, "http://nowhere.test/x")).status).toBe(502)
      expect(proxy.refusals).toEqual([])
    }))

  it("relays a large response unchanged to a slow reader, and closes the connection after it", () =>
    withProxy(`127.0.0.1:${port}`, async (proxy) => {
      const { hostname, port: proxyPort } = new URL(proxy.url)
      const socket: Socket = connect({ host: hostname, port: Number(proxyPort) })
      socket.write(`GET http://127.0.0.1:${port}/big HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`)
      const chunks: Array<Buffer> = []
      // Read nothing until the bytes stop flowing (every buffer between the origin and this paused reader is full),
      // so the proxy meets backpressure and must keep queued chunks intact.
      bigSocket = null
      socket.pause()
      let before = -1
      await eventually(
        async () => {
          const previous = before
          // What the origin still holds in memory: it stops shrinking once nothing downstream takes more.
          before = bigSocket?.writableLength ?? -1
          return { previous, now: before }
        },
        ({ previous, now }) => previous >= 0 && now === previous,
        "the origin's bytes to stop flowing to the paused reader"
      )
      socket.on("data", (c: Buffer) => chunks.push(c))
      socket.resume()
      await new Promise<void>((resolve, reject) => {
        socket.on("close", () => resolve())
        socket.on("error", reject)
      })
      const raw = Buffer.concat(chunks)
      const split = raw.indexOf("\r\n\r\n")
      expect(raw.subarray(0, split).toString()).toMatch(/^HTTP\/1\.1 200 OK\r\n/)
      expect(raw.subarray(0, split).toString().toLowerCase()).toContain(`content-length: ${BIG.length}`)
      const body = raw.subarray(split + 4)
      expect(body.length).toBe(BIG.length)
      expect(sha(body)).toBe(sha(BIG))
    }))

  it("forwards end-to-end headers and a chunked body, drops hop-by-hop headers, and asks the upstream to close", () =>
    withProxy(`127.0.0.1:${port}`, async (proxy) => {
      const { hostname, port: proxyPort } = new URL(proxy.url)
      const answer = await new Promise<{ status: number; body: string }>((resolve, reject) => {
        const req = request(
          {
            host: hostname,
            port: proxyPort,
            method: "POST",
            path: `http://127.0.0.1:${port}/form`,
            headers: {
              host: `127.0.0.1:${port}`,
              "x-end-to-end": "kept",
              "proxy-authorization": "Basic c2VjcmV0",
              "transfer-encoding": "chunked"
            }
          },
          (res) => {
            let body = ""
            res.on("data", (c: Buffer) => (body += c.toString()))
            res.on("end", () => resolve({ status: res.statusCode ?? 0, body }))
          }
        )
        req.on("error", reject)
        req.write("first,")
        req.end("second")
      })
      expect(answer).toEqual({ status: 200, body: `hello 127.0.0.1:${port}` })
      expect(lastSeen?.body).toBe("first,second")
      expect(lastSeen?.headers["x-end-to-end"]).toBe("kept")
      expect(lastSeen?.headers["proxy-authorization"]).toBeUndefined()
      expect(lastSeen?.headers.connection).toBe("close")
    }))
})
