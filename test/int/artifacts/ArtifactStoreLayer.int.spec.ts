// Given S3_ENDPOINT or not, then ArtifactStoreLayer stores on S3 (moto; the adapter imported on demand) or on disk.
import { mkdtemp, readdir, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { ArtifactStoreLayer, GatewayArtifactStoreLayer } from "@mds/shared/artifacts/ArtifactStoreLayer"
import { startMotoServer } from "../../support/MotoServer.ts"

const moto = await startMotoServer()
afterAll(() => moto.close())

const storeWith =
  (env: Record<string, string>, layer = ArtifactStoreLayer) =>
  <A, E>(use: (store: ArtifactStore["Service"]) => Effect.Effect<A, E>) =>
    Effect.runPromise(
      Effect.gen(function* () {
        return yield* use(yield* ArtifactStore)
      }).pipe(Effect.provide(layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown(env))))))
    )

const sample = async () => {
  const path = join(await mkdtemp(join(tmpdir(), "mds-layer-")), "clip.txt")
  await writeFile(path, "twelve bytes")
  return path
}

describe("ArtifactStoreLayer", () => {
  it("stores on S3 when S3_ENDPOINT is set: the file is in the bucket, the link is an S3 presigned URL", async () => {
    const path = await sample()
    const bucket = `mds-layer-${Date.now()}`
    const env = { S3_ENDPOINT: moto.endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: "moto", S3_SECRET_ACCESS_KEY: "moto" }
    const { size, link } = await storeWith(env)((store) =>
      Effect.gen(function* () {
        yield* store.putFile("jobs/p/j/clip.txt", path, "text/plain")
        const opened = yield* store.open("jobs/p/j/clip.txt")
        opened.body.destroy()
        const link = yield* store.presign("jobs/p/j/clip.txt", { expiresAt: Date.now() + 60_000, filename: "clip.txt" })
        return { size: opened.sizeBytes, link }
      })
    )
    expect(size).toBe(12)
    expect(link.startsWith(`${moto.endpoint}/${bucket}/`)).toBe(true)
    expect(new URL(link).searchParams.get("X-Amz-Signature")).toMatch(/^[0-9a-f]{64}$/)
    // The object is really in moto's bucket, readable without the adapter.
    const fetched = await fetch(link)
    expect(await fetched.text()).toBe("twelve bytes")
  })

  it("with S3_ENDPOINT alone, the S3 adapter (loaded on demand) asks for its own credentials", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        return yield* ArtifactStore
      }).pipe(
        Effect.provide(
          ArtifactStoreLayer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ S3_ENDPOINT: "http://127.0.0.1:1" }))))
        )
      )
    )
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("S3_ACCESS_KEY_ID")
  })

  it("stores on disk under DATA_DIR without S3_ENDPOINT, with a link signed by the gateway", async () => {
    const path = await sample()
    const dataDir = await mkdtemp(join(tmpdir(), "mds-layer-data-"))
    const env = { DATA_DIR: dataDir, DOWNLOAD_URL_SECRET: "s".repeat(32), PUBLIC_BASE_URL: "http://127.0.0.1:1" }
    const link = await storeWith(env)((store) =>
      Effect.gen(function* () {
        yield* store.putFile("jobs/p/j/clip.txt", path, "text/plain")
        return yield* store.presign("jobs/p/j/clip.txt", { expiresAt: Date.now() + 60_000, filename: "clip.txt" })
      })
    )
    expect(link.startsWith("http://127.0.0.1:1/v1/files/jobs/p/j/clip.txt?expires=")).toBe(true)
    expect(JSON.stringify(await readdir(dataDir, { recursive: true }))).toContain("clip.txt")
  })

  it("on disk, a service without a port of its own needs PUBLIC_BASE_URL; the gateway's links default to its own address", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "mds-layer-data-"))
    const env = { DATA_DIR: dataDir, DOWNLOAD_URL_SECRET: "s".repeat(32), PORT: "8123" }
    const link = (store: ArtifactStore["Service"]) =>
      store.presign("jobs/p/j/clip.txt", { expiresAt: Date.now() + 60_000, filename: "clip.txt" })
    const refused = await storeWith(env)(link).then(
      () => "started",
      (error: unknown) => String(error)
    )
    expect(refused).toContain("PUBLIC_BASE_URL")
    expect(await storeWith(env, GatewayArtifactStoreLayer)(link)).toMatch(/^http:\/\/127\.0\.0\.1:8123\/v1\/files\/jobs\/p\/j\/clip\.txt\?/)
  })
})
