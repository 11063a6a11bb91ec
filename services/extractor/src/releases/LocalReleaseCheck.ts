// The self-check's local part: the release downloads a file served on loopback, through an egress proxy, byte for byte.
import { randomBytes } from "node:crypto"
import { mkdtemp, readFile, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { egressProxy } from "../egress/EgressProxy.ts"
import type { ConfinementShape } from "../sandbox/Confinement.ts"
import { failureMessage } from "../ytdlp/classifyFailure.ts"
import { makeYtDlp } from "../ytdlp/YtDlpProcess.ts"
import type { Release } from "../ytdlp/ActiveRelease.ts"
import { onlyTo, serveCheckFile } from "./CheckFileServer.ts"
import { ReleaseCheckFailed } from "./ReleaseCheckFailed.ts"

/** The release downloads a random file from the check's own server and must store the same bytes. */
export const localCheck = Effect.fn("ReleaseSelfCheck.local")(function* (release: Release, confinement: ConfinementShape) {
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
