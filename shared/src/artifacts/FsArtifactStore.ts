// ArtifactStore adapter on the local filesystem under ${DATA_DIR}/artifacts; links are signed and served by the gateway.
import { copyFile, mkdir, open as openFile, readFile, rename, rm, stat, writeFile } from "node:fs/promises"
import { dirname, join } from "node:path"
import { Config, Effect, Layer, Schema } from "effect"
import { DataDir } from "../config/DataDir.ts"
import { ArtifactNotFound, ArtifactStore, ArtifactStoreError } from "./ArtifactStore.ts"
import { DownloadLinkSigner } from "./DownloadLinkSigner.ts"

/** What the store remembers beside each file; kept in a separate tree so no key can collide with it. */
const ArtifactMeta = Schema.Struct({ contentType: Schema.String, sizeBytes: Schema.Number })
const decodeMeta = Schema.decodeUnknownEffect(Schema.fromJsonString(ArtifactMeta))

// Control characters and backslashes never belong in a key; "." and ".." segments would escape the root.
const UNSAFE_KEY_CHARACTER = /[\u0000-\u001f\u007f\\]/

export const isSafeArtifactKey = (key: string): boolean => {
  if (key.length === 0 || key.length > 1024 || key.startsWith("/") || UNSAFE_KEY_CHARACTER.test(key)) return false
  return key.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")
}

/** Every store refuses an unsafe key before it touches anything (reads answer ArtifactNotFound instead). */
export const checkArtifactKey = (operation: string, key: string) =>
  isSafeArtifactKey(key)
    ? Effect.void
    : Effect.fail(new ArtifactStoreError({ operation, message: `unsafe artifact key ${JSON.stringify(key)}` }))

const failure = (operation: string) => (cause: unknown) =>
  new ArtifactStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

const isMissing = (cause: unknown) => typeof cause === "object" && cause !== null && "code" in cause && cause.code === "ENOENT"

/** Moves `from` to `to`; across filesystems it streams a copy (never the whole file in memory) and renames it in. */
const moveFile = async (from: string, to: string) => {
  try {
    await rename(from, to)
  } catch (cause) {
    if (!(typeof cause === "object" && cause !== null && "code" in cause && cause.code === "EXDEV")) throw cause
    const partial = `${to}.partial`
    await copyFile(from, partial)
    await rename(partial, to)
    await rm(from, { force: true })
  }
}

export const makeFsArtifactStore = (root: string, signer: DownloadLinkSigner["Service"]) => {
  const filePath = (key: string) => join(root, "files", ...key.split("/"))
  const metaPath = (key: string) => join(root, "meta", ...key.split("/")) + ".json"

  return ArtifactStore.of({
    putFile: Effect.fn("FsArtifactStore.putFile")(function* (key: string, path: string, contentType: string) {
      yield* checkArtifactKey("putFile", key)
      return yield* Effect.tryPromise({
        try: async () => {
          const target = filePath(key)
          await mkdir(dirname(target), { recursive: true })
          await mkdir(dirname(metaPath(key)), { recursive: true })
          // The source is moved, not copied: callers hand over a finished temp file.
          await moveFile(path, target)
          const { size } = await stat(target)
          await writeFile(metaPath(key), JSON.stringify({ contentType, sizeBytes: size }))
          return { key, sizeBytes: size }
        },
        catch: failure(`putFile ${key}`)
      })
    }),

    open: Effect.fn("FsArtifactStore.open")(function* (key: string) {
      if (!isSafeArtifactKey(key)) return yield* new ArtifactNotFound({ key })
      const metaText = yield* Effect.tryPromise({
        try: () => readFile(metaPath(key), "utf8"),
        catch: (cause) => (isMissing(cause) ? new ArtifactNotFound({ key }) : failure(`open ${key}`)(cause))
      })
      const meta = yield* decodeMeta(metaText).pipe(Effect.mapError(failure(`open ${key}`)))
      // The file is opened before anything is answered: a removal (the expiry sweeper) after this point leaves the
      // open file readable to its end, and one before it is ArtifactNotFound, never an error emitted later by a stream
      // that opens the path on its own (which nobody may be listening to).
      const opened = yield* Effect.tryPromise({
        try: async () => {
          const handle = await openFile(filePath(key), "r")
          try {
            return { handle, size: (await handle.stat()).size }
          } catch (cause) {
            await handle.close()
            throw cause
          }
        },
        catch: (cause) => (isMissing(cause) ? new ArtifactNotFound({ key }) : failure(`open ${key}`)(cause))
      })
      return { body: opened.handle.createReadStream(), sizeBytes: opened.size, contentType: meta.contentType }
    }),

    presign: Effect.fn("FsArtifactStore.presign")(function* (
      key: string,
      options: { readonly expiresAt: number; readonly filename: string }
    ) {
      yield* checkArtifactKey("presign", key)
      return signer.url(key, options.expiresAt, options.filename)
    }),

    remove: Effect.fn("FsArtifactStore.remove")(function* (key: string) {
      yield* checkArtifactKey("remove", key)
      yield* Effect.tryPromise({
        try: async () => {
          await rm(filePath(key), { force: true })
          await rm(metaPath(key), { force: true })
        },
        catch: failure(`remove ${key}`)
      })
    })
  })
}

export const FsArtifactStore: {
  readonly config: Config.Config<string>
  readonly layer: Layer.Layer<ArtifactStore, Config.ConfigError, DownloadLinkSigner>
} = {
  config: DataDir.pipe(Config.map((dir) => join(dir, "artifacts"))),
  /** Needs DownloadLinkSigner (provide DownloadLinkSigner.layer). */
  layer: Layer.effect(
    ArtifactStore,
    Effect.gen(function* () {
      const root = yield* FsArtifactStore.config
      const signer = yield* DownloadLinkSigner
      return makeFsArtifactStore(root, signer)
    })
  )
}
