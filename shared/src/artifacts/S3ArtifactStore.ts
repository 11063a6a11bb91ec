// ArtifactStore adapter on MinIO or any S3 API (minio client): streamed multipart uploads, presigned GET links.
import { createReadStream } from "node:fs"
import { rm, stat } from "node:fs/promises"
import { Clock, Config, Effect, Layer, Option, Redacted } from "effect"
import { ArtifactNotFound, ArtifactStore, ArtifactStoreError } from "./ArtifactStore.ts"
import { contentDisposition } from "./ContentDisposition.ts"
import { checkArtifactKey, isSafeArtifactKey } from "./FsArtifactStore.ts"

/** S3 signs a presigned URL for at most seven days (SigV4). */
export const MAX_PRESIGN_SECONDS = 7 * 24 * 3600
/** Parts are read from the file one at a time, so this bounds an upload's memory; S3's minimum is 5 MiB. */
const PART_SIZE = 16 * 1024 * 1024

export interface S3Settings {
  /** Where the services reach the store, e.g. http://minio:9000. */
  readonly endpoint: string
  /** Where clients reach it: presigned links are signed for this host (e.g. the public proxy). */
  readonly publicUrl: string
  readonly bucket: string
  readonly region: string
  readonly accessKey: Redacted.Redacted<string>
  readonly secretKey: Redacted.Redacted<string>
}

/**
 * The S3 client's module (and its XML parsers, about 150 modules) is loaded when an S3 store is opened, not by every
 * process that imports the adapter: a service on the filesystem store, and every CLI run, start without it.
 */
const loadMinio = Effect.promise(() => import("minio"))

const clientFor = (Client: typeof import("minio").Client, url: string, settings: S3Settings) => {
  const parsed = new URL(url)
  const useSSL = parsed.protocol === "https:"
  return new Client({
    endPoint: parsed.hostname,
    port: parsed.port === "" ? (useSSL ? 443 : 80) : Number(parsed.port),
    useSSL,
    // Path-style works with MinIO, moto and AWS alike, and keeps one host for every bucket behind a proxy.
    pathStyle: true,
    // A fixed region: otherwise the client asks the server for the bucket's region before presigning.
    region: settings.region,
    accessKey: Redacted.value(settings.accessKey),
    secretKey: Redacted.value(settings.secretKey),
    partSize: PART_SIZE
  })
}

const failure = (operation: string) => (cause: unknown) =>
  new ArtifactStoreError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

const errorCode = (cause: unknown) => (typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "")

const isMissingObject = (cause: unknown) => ["NotFound", "NoSuchKey"].includes(errorCode(cause))

/**
 * The link's signing date is its expiry minus seven days rather than "now": the link then expires exactly at
 * `expiresAt` (to the second, like the filesystem adapter's links) and presigning the same artifact twice gives
 * the same URL, so a replayed projection stores the same document. Presigning is offline: no request is made.
 */
export const presignedWindow = (expiresAtMs: number, nowMs: number) => {
  const expiresAtSeconds = Math.floor(expiresAtMs / 1000)
  return {
    requestDate: new Date((expiresAtSeconds - MAX_PRESIGN_SECONDS) * 1000),
    tooFar: expiresAtMs - nowMs > MAX_PRESIGN_SECONDS * 1000
  }
}

export const makeS3ArtifactStore = Effect.fn("makeS3ArtifactStore")(function* (settings: S3Settings) {
  const { Client } = yield* loadMinio
  const client = clientFor(Client, settings.endpoint, settings)
  const signer = settings.publicUrl === settings.endpoint ? client : clientFor(Client, settings.publicUrl, settings)
  const { bucket } = settings

  // Created if absent; several replicas may race here, and "already yours" is success.
  yield* Effect.tryPromise({
    try: async () => {
      if (await client.bucketExists(bucket)) return
      await client
        .makeBucket(bucket, settings.region)
        .catch((cause) =>
          ["BucketAlreadyOwnedByYou", "BucketAlreadyExists"].includes(errorCode(cause)) ? undefined : Promise.reject(cause)
        )
    },
    catch: failure(`ensure bucket ${bucket}`)
  })

  return ArtifactStore.of({
    putFile: Effect.fn("S3ArtifactStore.putFile")(function* (key: string, path: string, contentType: string) {
      yield* checkArtifactKey("putFile", key)
      const sizeBytes = yield* Effect.tryPromise({
        try: async () => {
          const { size } = await stat(path)
          // Streamed with its size: the client uploads in parts of PART_SIZE and never holds the whole file.
          await client.putObject(bucket, key, createReadStream(path), size, { "Content-Type": contentType })
          return size
        },
        catch: failure(`putFile ${key}`)
      })
      // Callers hand over a finished temp file (the filesystem adapter moves it); once uploaded it is not needed.
      yield* Effect.promise(() => rm(path, { force: true }))
      return { key, sizeBytes }
    }),

    open: Effect.fn("S3ArtifactStore.open")(function* (key: string) {
      if (!isSafeArtifactKey(key)) return yield* new ArtifactNotFound({ key })
      return yield* Effect.tryPromise({
        try: async () => {
          const info = await client.statObject(bucket, key)
          const body = await client.getObject(bucket, key)
          const contentType = String(info.metaData["content-type"] ?? "application/octet-stream")
          return { body, sizeBytes: info.size, contentType }
        },
        catch: (cause) => (isMissingObject(cause) ? new ArtifactNotFound({ key }) : failure(`open ${key}`)(cause))
      })
    }),

    presign: Effect.fn("S3ArtifactStore.presign")(function* (
      key: string,
      options: { readonly expiresAt: number; readonly filename: string }
    ) {
      yield* checkArtifactKey("presign", key)
      const window = presignedWindow(options.expiresAt, yield* Clock.currentTimeMillis)
      if (window.tooFar) {
        return yield* new ArtifactStoreError({
          operation: `presign ${key}`,
          message: "S3 presigned links live at most 7 days; lower API_DOWNLOAD_URL_TTL_SECONDS"
        })
      }
      return yield* Effect.tryPromise({
        try: () =>
          signer.presignedGetObject(
            bucket,
            key,
            MAX_PRESIGN_SECONDS,
            { "response-content-disposition": contentDisposition(options.filename) },
            window.requestDate
          ),
        catch: failure(`presign ${key}`)
      })
    }),

    remove: Effect.fn("S3ArtifactStore.remove")(function* (key: string) {
      yield* checkArtifactKey("remove", key)
      yield* Effect.tryPromise({ try: () => client.removeObject(bucket, key), catch: failure(`remove ${key}`) })
    })
  })
})

/** S3_ENDPOINT selects this adapter (see ArtifactStoreLayer); the credentials are redacted config. */
const s3Config = Config.all({
  endpoint: Config.String("S3_ENDPOINT"),
  publicUrl: Config.option(Config.String("S3_PUBLIC_URL")),
  bucket: Config.String("S3_BUCKET").pipe(Config.withDefault("mds-artifacts")),
  region: Config.String("S3_REGION").pipe(Config.withDefault("us-east-1")),
  accessKey: Config.Redacted("S3_ACCESS_KEY_ID"),
  secretKey: Config.Redacted("S3_SECRET_ACCESS_KEY")
}).pipe(Config.map(({ publicUrl, ...rest }): S3Settings => ({ ...rest, publicUrl: Option.getOrElse(publicUrl, () => rest.endpoint) })))

export const S3ArtifactStore = {
  config: s3Config,
  layer: Layer.effect(ArtifactStore, Effect.flatMap(s3Config, makeS3ArtifactStore))
}
