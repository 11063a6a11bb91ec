import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { ArtifactStore } from "./ArtifactStore.ts"
import { ArtifactStoreLayer } from "./ArtifactStoreLayer.ts"

const presignWith = (env: Record<string, string>) =>
  Effect.runPromiseExit(
    Effect.gen(function*() {
      const store = yield* ArtifactStore
      return yield* store.presign("jobs/p/j/a.mp4", { expiresAt: Date.now() + 60_000, filename: "a.mp4" })
    }).pipe(
      Effect.provide(ArtifactStoreLayer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env)))))
    )
  )

describe("ArtifactStoreLayer", () => {
  it("without S3_ENDPOINT builds the filesystem adapter, whose links point at the gateway", async () => {
    const dir = await mkdtemp(join(tmpdir(), "mds-store-layer-"))
    try {
      const exit = await presignWith({ DATA_DIR: dir, DOWNLOAD_URL_SECRET: "x".repeat(64), PUBLIC_BASE_URL: "http://files.test" })
      expect(Exit.isSuccess(exit) && exit.value.startsWith("http://files.test/")).toBe(true)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it("with S3_ENDPOINT loads the S3 adapter on demand, which asks for its own credentials", async () => {
    const exit = await presignWith({ S3_ENDPOINT: "http://127.0.0.1:1" })
    expect(Exit.isFailure(exit)).toBe(true)
    expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain("S3_ACCESS_KEY_ID")
  })
})
