// Runs the ArtifactStore contract against the S3 adapter: on moto's S3 server always, on MinIO when Docker answers.
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { afterAll, describe } from "vitest"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { makeS3ArtifactStore, MAX_PRESIGN_SECONDS, type S3Settings } from "@mds/shared/artifacts/S3ArtifactStore"
import { announceDockerSkip, dockerAvailable, NO_DOCKER_REASON } from "../../support/DockerEngine.ts"
import { startMotoServer } from "../../support/MotoServer.ts"
import { MINIO_IMAGE, stopContainers, testMinio } from "../support/TestContainers.ts"
import { artifactStoreContract } from "./ArtifactStore.contract.ts"

const moto = await startMotoServer()
afterAll(() => moto.close())

const settings = (endpoint: string, bucket: string, access = "moto", secret = "moto"): S3Settings => ({
  endpoint,
  publicUrl: endpoint,
  bucket,
  region: "us-east-1",
  accessKey: Redacted.make(access),
  secretKey: Redacted.make(secret)
})

const s3Layer = (make: () => Promise<S3Settings>) => Layer.effect(ArtifactStore, Effect.flatMap(Effect.promise(make), makeS3ArtifactStore))

artifactStoreContract(
  "S3 on moto",
  s3Layer(async () => settings(moto.endpoint, "mds-contract")),
  { linksEnforced: false }
)

layer(
  s3Layer(async () => settings(moto.endpoint, "mds-links")),
  { timeout: 60_000, excludeTestServices: true }
)("S3 adapter on moto", (it) => {
  it.effect("creates its bucket when absent and opens an existing one as it is", () =>
    Effect.gen(function* () {
      const fresh = `mds-fresh-${Date.now()}`
      const first = yield* makeS3ArtifactStore(settings(moto.endpoint, fresh))
      const path = join(yield* Effect.promise(() => mkdtemp(join(tmpdir(), "mds-s3-"))), "a.txt")
      yield* Effect.promise(() => writeFile(path, "kept"))
      yield* first.putFile("a.txt", path, "text/plain")
      const second = yield* makeS3ArtifactStore(settings(moto.endpoint, fresh))
      assert.strictEqual((yield* second.open("a.txt")).sizeBytes, 4)
    })
  )

  it.effect("a link expires exactly at expiresAt (to the second) and names the file for the browser", () =>
    Effect.gen(function* () {
      const store = yield* ArtifactStore
      const expiresAt = Date.now() + 90 * 60_000 + 789
      const link = new URL(yield* store.presign("jobs/p/j/clip.mp4", { expiresAt, filename: "clip.mp4" }))
      const date = link.searchParams.get("X-Amz-Date") ?? ""
      const signedAt = Date.parse(date.replace(/^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/, "$1-$2-$3T$4:$5:$6Z"))
      const validFor = Number(link.searchParams.get("X-Amz-Expires"))
      assert.strictEqual(signedAt + validFor * 1000, Math.floor(expiresAt / 1000) * 1000)
      assert.isAtMost(signedAt, Date.now())
      assert.include(link.searchParams.get("response-content-disposition") ?? "", 'filename="clip.mp4"')
    })
  )

  it.effect("refuses a link S3 could not sign (more than 7 days)", () =>
    Effect.gen(function* () {
      const store = yield* ArtifactStore
      const error = yield* Effect.flip(
        store.presign("a.txt", { expiresAt: Date.now() + (MAX_PRESIGN_SECONDS + 60) * 1000, filename: "a.txt" })
      )
      assert.strictEqual(error._tag, "ArtifactStoreError")
    })
  )
})

announceDockerSkip("S3 adapter on MinIO")
describe.skipIf(!dockerAvailable)(
  dockerAvailable ? `S3 adapter on MinIO (${MINIO_IMAGE} via testcontainers)` : `S3 adapter on MinIO (${NO_DOCKER_REASON})`,
  () => {
    afterAll(stopContainers)
    artifactStoreContract(
      "S3 on MinIO",
      s3Layer(async () => {
        const minio = await testMinio()
        return settings(minio.endpoint, "mds-contract", minio.accessKey, minio.secretKey)
      }),
      { linksEnforced: true }
    )
  }
)
