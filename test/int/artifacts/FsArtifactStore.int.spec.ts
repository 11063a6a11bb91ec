// Runs the ArtifactStore contract against the filesystem adapter, its links served over HTTP by the gateway's file route.
import { createServer, type Server } from "node:http"
import { unlinkSync } from "node:fs"
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect, Exit, Layer } from "effect"
import { buffer } from "node:stream/consumers"
import { afterAll, expect, it } from "vitest"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { DownloadLinkSigner, makeDownloadLinkSigner } from "@mds/shared/artifacts/DownloadLinkSigner"
import { makeFsArtifactStore } from "@mds/shared/artifacts/FsArtifactStore"
import { serveFile } from "../../../services/gateway/src/files/serveFile.ts"
import { freePort } from "../../support/NatsServer.ts"
import { artifactStoreContract } from "./ArtifactStore.contract.ts"

const port = await freePort()
const signer = makeDownloadLinkSigner("contract-secret", `http://127.0.0.1:${port}`)
const root = join(await mkdtemp(join(tmpdir(), "mds-fs-contract-")), "artifacts")
const store = makeFsArtifactStore(root, signer)
const services = Layer.mergeAll(Layer.succeed(ArtifactStore, store), Layer.succeed(DownloadLinkSigner, signer))

/** Only the gateway's GET /v1/files/* route, without the rest of the gateway. */
const server: Server = createServer((req, res) => {
  const url = new URL(req.url ?? "/", `http://127.0.0.1:${port}`)
  const key = url.pathname
    .replace(/^\/v1\/files\//, "")
    .split("/")
    .map(decodeURIComponent)
    .join("/")
  const input = { method: "GET", headers: {}, query: Object.fromEntries(url.searchParams), params: { "*": key }, body: null }
  void Effect.runPromiseExit(serveFile(input).pipe(Effect.provide(services))).then((exit) => {
    if (Exit.isSuccess(exit) && exit.value._tag === "File") {
      res.writeHead(200, exit.value.headers)
      exit.value.body.pipe(res)
    } else {
      res.writeHead(Exit.isFailure(exit) && JSON.stringify(exit.cause).includes("LinkExpired") ? 410 : 403).end()
    }
  })
})
await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve))
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

artifactStoreContract("filesystem (links served by the gateway's file route)", Layer.succeed(ArtifactStore, store), { linksEnforced: true })

it("a file unlinked the moment open answered is still read whole, with no stream error left for nobody", async () => {
  const key = "jobs/prj_race/job_race/race.txt"
  const source = join(root, "..", "race-source.txt")
  await writeFile(source, "raced bytes")
  await Effect.runPromise(store.putFile(key, source, "text/plain"))
  const opened = await Effect.runPromise(store.open(key))
  // Synchronously, before any stream of the path could open it (the expiry sweeper removing a file being served).
  unlinkSync(join(root, "files", key))
  expect((await buffer(opened.body)).toString()).toBe("raced bytes")
})
