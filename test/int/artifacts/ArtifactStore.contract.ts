// Behaviour every ArtifactStore adapter must have, links fetched over real HTTP; run it against each adapter with its own layer.
import { createHash, randomBytes } from "node:crypto"
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { buffer } from "node:stream/consumers"
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer } from "effect"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { newId } from "@mds/shared/ids/Ids"

export interface ArtifactStoreContractOptions {
  /** Whether the server behind the links refuses expired or tampered links (moto's S3 checks neither). */
  readonly linksEnforced: boolean
}

const scratch = await mkdtemp(join(tmpdir(), "mds-artifact-contract-"))

const sourceFile = (content: Buffer | string) =>
  Effect.promise(async () => {
    const path = join(scratch, `src-${newId("job")}`)
    await writeFile(path, content)
    return path
  })

const sha256 = (body: Buffer) => createHash("sha256").update(body).digest("hex")
const fetchBytes = (url: string) =>
  Effect.promise(async () => {
    const response = await fetch(url)
    return { status: response.status, headers: response.headers, body: Buffer.from(await response.arrayBuffer()) }
  })

export const artifactStoreContract = (name: string, adapter: Layer.Layer<ArtifactStore, unknown>, options: ArtifactStoreContractOptions) =>
  layer(adapter, { timeout: 120_000, excludeTestServices: true })(`ArtifactStore contract: ${name}`, (it) => {
    const hour = () => Date.now() + 3_600_000

    it.effect("stores a file and opens it with its size, content type and bytes", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        const key = `jobs/${newId("prj")}/${newId("job")}/clip.mp4`
        const stored = yield* store.putFile(key, yield* sourceFile("hello video"), "video/mp4")
        assert.deepStrictEqual(stored, { key, sizeBytes: 11 })
        const opened = yield* store.open(key)
        assert.strictEqual(opened.sizeBytes, 11)
        assert.strictEqual(opened.contentType, "video/mp4")
        assert.strictEqual((yield* Effect.promise(() => buffer(opened.body))).toString(), "hello video")
      })
    )

    it.effect("a presigned link serves the bytes over HTTP as an attachment named after the file", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        const filename = "Ünïcode clip — 1.mp4"
        const key = `jobs/${newId("prj")}/${newId("job")}/${filename}`
        const content = randomBytes(64 * 1024)
        yield* store.putFile(key, yield* sourceFile(content), "video/mp4")
        const response = yield* fetchBytes(yield* store.presign(key, { expiresAt: hour(), filename }))
        assert.strictEqual(response.status, 200)
        assert.strictEqual(sha256(response.body), sha256(content))
        assert.strictEqual(response.headers.get("content-type"), "video/mp4")
        assert.include(response.headers.get("content-disposition") ?? "", `filename*=UTF-8''${encodeURIComponent(filename)}`)
      })
    )

    it.effect("presigning the same artifact and expiry twice gives the same link (a replay rebuilds the same documents)", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        const key = `thumbnails/${newId("med")}.jpg`
        yield* store.putFile(key, yield* sourceFile("jpeg"), "image/jpeg")
        const expiresAt = hour()
        const first = yield* store.presign(key, { expiresAt, filename: "t.jpg" })
        yield* Effect.sleep("1100 millis")
        assert.strictEqual(yield* store.presign(key, { expiresAt, filename: "t.jpg" }), first)
      })
    )

    it.effect("a file larger than one upload part round-trips unchanged (streamed, multipart)", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        const key = `jobs/${newId("prj")}/${newId("job")}/big.bin`
        const content = randomBytes(24 * 1024 * 1024)
        const stored = yield* store.putFile(key, yield* sourceFile(content), "application/octet-stream")
        assert.strictEqual(stored.sizeBytes, content.length)
        const response = yield* fetchBytes(yield* store.presign(key, { expiresAt: hour(), filename: "big.bin" }))
        assert.strictEqual(response.body.length, content.length)
        assert.strictEqual(sha256(response.body), sha256(content))
      })
    )

    it.effect("open of a missing key is ArtifactNotFound", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        const error = yield* Effect.flip(store.open(`jobs/${newId("prj")}/none.mp4`))
        assert.strictEqual(error._tag, "ArtifactNotFound")
      })
    )

    it.effect("an artifact removed right after it was opened is still read whole (expiry may remove a file being served)", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        const key = `jobs/${newId("prj")}/${newId("job")}/served.txt`
        yield* store.putFile(key, yield* sourceFile("served bytes"), "text/plain")
        const opened = yield* store.open(key)
        yield* store.remove(key)
        assert.strictEqual((yield* Effect.promise(() => buffer(opened.body))).toString(), "served bytes")
      })
    )

    it.effect("remove deletes the artifact; removing again is harmless", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        const key = `jobs/${newId("prj")}/${newId("job")}/gone.txt`
        yield* store.putFile(key, yield* sourceFile("x"), "text/plain")
        yield* store.remove(key)
        assert.strictEqual((yield* Effect.flip(store.open(key)))._tag, "ArtifactNotFound")
        yield* store.remove(key)
      })
    )

    it.effect("refuses keys that could escape their place", () =>
      Effect.gen(function* () {
        const store = yield* ArtifactStore
        for (const key of ["../escape.txt", "a/../../b", "/etc/passwd", "a//b", ""]) {
          const error = yield* Effect.flip(store.putFile(key, yield* sourceFile("x"), "text/plain"))
          assert.strictEqual(error._tag, "ArtifactStoreError", key)
        }
      })
    )

    if (options.linksEnforced) {
      it.effect("an expired or tampered link is refused", () =>
        Effect.gen(function* () {
          const store = yield* ArtifactStore
          const key = `jobs/${newId("prj")}/${newId("job")}/late.txt`
          yield* store.putFile(key, yield* sourceFile("late"), "text/plain")
          const expired = yield* fetchBytes(yield* store.presign(key, { expiresAt: Date.now() - 5_000, filename: "late.txt" }))
          assert.isAtLeast(expired.status, 400)
          const valid = yield* store.presign(key, { expiresAt: hour(), filename: "late.txt" })
          const tampered = yield* fetchBytes(valid.replace(/(signature|Signature)=([^&]{4})/, "$1=AAAA"))
          assert.isAtLeast(tampered.status, 400)
        })
      )
    }
  })
