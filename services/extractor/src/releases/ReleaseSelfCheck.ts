// Proves a freshly installed yt-dlp works before any job uses it: a local file end to end, then the operator's canaries.
import { randomBytes } from "node:crypto"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Context, Effect, Layer, Schema } from "effect"
import { UrlNotAllowed } from "@mds/shared/domain/DomainErrors"
import { EgressPolicy, type EgressPolicyShape } from "@mds/shared/egress/EgressPolicy"
import { egressProxy } from "../egress/EgressProxy.ts"
import { UpstreamProxies } from "../egress/UpstreamProxies.ts"
import { ExtractorConfig } from "../ExtractorConfig.ts"
import { Confinement } from "../sandbox/Confinement.ts"
import { failureMessage } from "../ytdlp/classifyFailure.ts"
import { makeYtDlp } from "../ytdlp/YtDlpProcess.ts"
import { baseFlags } from "../ytdlp/YtDlpFlags.ts"
import type { Release } from "./ActiveRelease.ts"
import { ReleaseConfig } from "./ReleaseConfig.ts"

export class ReleaseCheckFailed extends Schema.TaggedError<ReleaseCheckFailed>()("ReleaseCheckFailed", {
  message: Schema.String
}) {}

/** A small file served on loopback by the extractor itself: it needs no network and proves extraction and download. */
const serveCheckFile = (body: Buffer) =>
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
const onlyTo = (port: number): EgressPolicyShape => {
  const refuse = (target: string) => new UrlNotAllowed({ url: target, message: "the self-check reaches only its own server" })
  const resolveTarget = (host: string, target: number) =>
    host === "127.0.0.1" && target === port
      ? Effect.succeed({ address: host, family: 4 as const })
      : Effect.fail(refuse(`${host}:${target}`))
  const resolveUrl = (url: URL) => resolveTarget(url.hostname, Number(url.port))
  return { check: (url) => Effect.asVoid(resolveUrl(url)), resolveUrl, resolveTarget }
}

export class ReleaseSelfCheck extends Context.Service<
  ReleaseSelfCheck,
  {
    check(release: Release): Effect.Effect<void, ReleaseCheckFailed>
  }
>()("mds/extractor/ReleaseSelfCheck") {
  static readonly layer = Layer.effect(
    ReleaseSelfCheck,
    Effect.gen(function* () {
      const config = yield* ReleaseConfig
      const extractor = yield* ExtractorConfig
      const policy = yield* EgressPolicy
      const confinement = yield* Confinement
      const upstreams = yield* UpstreamProxies

      const local = Effect.fn("ReleaseSelfCheck.local")(function* (release: Release) {
        const ytdlp = makeYtDlp(release.path, confinement)
        const body = randomBytes(4096)
        const served = yield* serveCheckFile(body)
        // Through an egress proxy like every real run, one that lets through only the check's own loopback server.
        const proxy = yield* egressProxy(onlyTo(served.port))
        const dir = yield* Effect.acquireRelease(
          Effect.promise(() => mkdtemp(join(tmpdir(), "mds-release-check-"))),
          (path) => Effect.promise(() => rm(path, { recursive: true, force: true }))
        )
        yield* ytdlp
          .run(served.url, {
            ignoreConfig: true,
            noCacheDir: true,
            noPlaylist: true,
            proxy: proxy.url,
            paths: dir,
            output: "check.%(ext)s",
            noProgress: true
          })
          .pipe(Effect.mapError((error) => new ReleaseCheckFailed({ message: `the local check failed: ${failureMessage(error.stderr)}` })))
        const downloaded = yield* Effect.promise(() => readFile(join(dir, "check.mp4")).catch(() => null))
        if (downloaded === null || !downloaded.equals(body)) {
          return yield* new ReleaseCheckFailed({ message: "the local check downloaded a different file than was served" })
        }
      }, Effect.scoped)

      const canary = Effect.fn("ReleaseSelfCheck.canary")(function* (release: Release, url: string) {
        // A canary is any page: it goes the way of platform traffic without a proxy of its own (UPSTREAM_PROXY).
        const proxy = yield* egressProxy(policy, upstreams.forPlatform(""))
        yield* makeYtDlp(release.path, confinement)
          .run(url, { ...baseFlags(proxy.url, extractor.ffmpegPath), dumpSingleJson: true })
          .pipe(Effect.mapError((error) => new ReleaseCheckFailed({ message: `canary ${url} failed: ${failureMessage(error.stderr)}` })))
      }, Effect.scoped)

      const check = (release: Release) =>
        Effect.gen(function* () {
          yield* local(release)
          for (const url of config.canaryUrls) yield* canary(release, url)
        }).pipe(
          Effect.timeoutOrElse({
            duration: config.checkTimeoutMs,
            orElse: () => Effect.fail(new ReleaseCheckFailed({ message: `the check took longer than ${config.checkTimeoutMs / 1000} s` }))
          }),
          Effect.withSpan("ReleaseSelfCheck.check")
        )

      return ReleaseSelfCheck.of({ check })
    })
  )
}
