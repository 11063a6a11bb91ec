// The self-check's own file server on loopback, and the egress policy that lets a run reach it and nothing else.
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { Effect } from "effect"
import { UrlNotAllowed } from "@mds/shared/domain/DomainErrors"
import type { EgressPolicyShape } from "@mds/shared/egress/EgressPolicy"

/** A small file served on loopback by the extractor itself: it needs no network and proves extraction and download. */
export const serveCheckFile = (body: Buffer) =>
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ url: string; port: number; close: () => Promise<void> }>((resolve, reject) => {
          const server = createServer((req, res) => {
            if (req.url !== "/mds-self-check.mp4") return void res.writeHead(404).end()
            res.writeHead(200, { "content-type": "video/mp4", "content-length": String(body.length) })
            res.end(req.method === "HEAD" ? undefined : body)
          })
          server.once("error", reject)
          server.listen(0, "127.0.0.1", () => {
            const { port } = server.address() as AddressInfo
            resolve({
              url: `http://127.0.0.1:${port}/mds-self-check.mp4`,
              port,
              close: () =>
                new Promise<void>((done) => {
                  server.closeAllConnections()
                  server.close(() => done())
                })
            })
          })
        })
    ),
    (served) => Effect.promise(served.close)
  )

/** An egress policy for the local check alone: 127.0.0.1 on the check server's port, nothing else. */
export const onlyTo = (port: number): EgressPolicyShape => {
  const refuse = (target: string) => new UrlNotAllowed({ url: target, message: "the self-check reaches only its own server" })
  const resolveTarget = (host: string, target: number) =>
    host === "127.0.0.1" && target === port
      ? Effect.succeed({ address: host, family: 4 as const })
      : Effect.fail(refuse(`${host}:${target}`))
  const resolveUrl = (url: URL) => resolveTarget(url.hostname, Number(url.port))
  return { check: (url) => Effect.asVoid(resolveUrl(url)), resolveUrl, resolveTarget }
}
