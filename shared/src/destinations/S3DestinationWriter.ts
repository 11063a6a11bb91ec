// Extension: DestinationWriter on any S3-compatible endpoint (the minio client the artifact store uses). A whole-object
// PutObject is atomic and a multipart upload shows only once completed, so a failed upload never shows under its key.
// The client connects only to the address the egress guard resolved (no second lookup: no DNS rebinding).
import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import http from "node:http"
import https from "node:https"
import type { LookupFunction } from "node:net"
import { Duration, Effect, Redacted } from "effect"
import type { ResolvedAddress } from "../egress/HostLookup.ts"
import {
  checkDestinationKey,
  DestinationDenied,
  type DestinationError,
  DestinationFailed,
  DestinationMissing,
  DestinationUnreachable,
  type DestinationWriter,
  type PutSource,
  type WritableTarget,
  withProbe
} from "./DestinationWriter.ts"

/** Parts are read one at a time, so this bounds an upload's memory; S3's minimum is 5 MiB. */
const PART_SIZE = 16 * 1024 * 1024
/** A check or a removal that takes longer has no answer coming. */
const SHORT_REQUEST = Duration.seconds(30)

const DENIED = new Set([
  "AccessDenied",
  "InvalidAccessKeyId",
  "SignatureDoesNotMatch",
  "InvalidToken",
  "ExpiredToken",
  "AllAccessDisabled",
  "AccountProblem",
  "InvalidSecurity",
  "Forbidden"
])
const MISSING = new Set(["NoSuchBucket"])
const UNREACHABLE = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ENOTFOUND",
  "EAI_AGAIN",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "EPIPE",
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "CERT_HAS_EXPIRED",
  "ERR_TLS_CERT_ALTNAME_INVALID"
])

const codeOf = (cause: unknown) => (typeof cause === "object" && cause !== null && "code" in cause ? String(cause.code) : "")

type S3Target = Extract<WritableTarget, { readonly kind: "s3" }>

/** Every credential character removed from a message, whatever a server echoes back. */
const scrubbed = (target: S3Target, message: string) =>
  [Redacted.value(target.secretAccessKey), Redacted.value(target.accessKeyId)]
    .filter((secret) => secret.length > 0)
    .reduce((text, secret) => text.split(secret).join("****"), message)

/** An S3 or network error as the port names it. */
export const s3Failure =
  (target: S3Target, operation: string) =>
  (cause: unknown): DestinationError => {
    const code = codeOf(cause)
    const message = scrubbed(target, `${code === "" ? "" : `${code}: `}${cause instanceof Error ? cause.message : String(cause)}`)
    if (DENIED.has(code)) return new DestinationDenied({ operation, message })
    if (MISSING.has(code)) return new DestinationMissing({ operation, message })
    if (UNREACHABLE.has(code) || code.startsWith("UND_ERR_")) return new DestinationUnreachable({ operation, message })
    return new DestinationFailed({ operation, message })
  }

/** A lookup that answers the address the egress guard already resolved and checked. */
const pinnedLookup =
  (address: ResolvedAddress): LookupFunction =>
  (_hostname, options, callback) => {
    if (options.all === true) (callback as (e: null, all: ReadonlyArray<ResolvedAddress>) => void)(null, [address])
    else callback(null, address.address, address.family)
  }

/** The key under the destination's prefix ("" or ending in "/"). */
export const objectName = (prefix: string, key: string) => `${prefix}${key}`

/**
 * The writer of an S3 target; the S3 client's module (with its XML parsers, about 150 modules) is loaded when the
 * first one is opened, not by every process that imports this file.
 */
export const openS3DestinationWriter = (target: S3Target, address: ResolvedAddress) =>
  Effect.map(
    Effect.promise(() => import("minio")),
    ({ Client }) => makeS3DestinationWriter(Client, target, address)
  )

const makeS3DestinationWriter = (Client: typeof import("minio").Client, target: S3Target, address: ResolvedAddress): DestinationWriter => {
  const url = new URL(target.endpoint)
  const useSSL = url.protocol === "https:"
  const agentOptions = { keepAlive: true, lookup: pinnedLookup(address) }
  const client = new Client({
    endPoint: url.hostname.replace(/^\[|\]$/g, ""),
    port: url.port === "" ? (useSSL ? 443 : 80) : Number(url.port),
    useSSL,
    // Path-style works with MinIO, moto, Garage and AWS alike.
    pathStyle: true,
    // A fixed region: otherwise the client first asks the server for the bucket's region.
    region: target.region,
    accessKey: Redacted.value(target.accessKeyId),
    secretKey: Redacted.value(target.secretAccessKey),
    partSize: PART_SIZE,
    transportAgent: useSSL ? new https.Agent(agentOptions) : new http.Agent(agentOptions)
  })
  const { bucket } = target
  const name = (key: string) => objectName(target.prefix, key)
  const unanswered = (operation: string) => () =>
    Effect.fail(new DestinationUnreachable({ operation, message: `no answer from ${url.host} within ${Duration.format(SHORT_REQUEST)}` }))

  const put = Effect.fn("S3DestinationWriter.put")(function* (key: string, source: PutSource, contentType: string) {
    yield* checkDestinationKey("write", key)
    const sizeBytes = yield* Effect.tryPromise({
      try: async () => {
        const size = "path" in source ? (await stat(source.path)).size : source.sizeBytes
        const body = "path" in source ? createReadStream(source.path) : source.stream
        // The client never hears of a source's error (its upload of unknown size would wait for good): the source's
        // error ends the put, and the parts already sent are aborted so no incomplete upload lingers in the bucket.
        const broken = new Promise<never>((_, reject) => body.once("error", reject))
        try {
          await Promise.race([client.putObject(bucket, name(key), body, size ?? undefined, { "Content-Type": contentType }), broken])
        } catch (cause) {
          if (body.errored !== null) await client.removeIncompleteUpload(bucket, name(key)).catch(() => undefined)
          throw cause
        }
        return size ?? (await client.statObject(bucket, name(key))).size
      },
      catch: s3Failure(target, "write")
    })
    return { key, sizeBytes }
  })

  const exists = Effect.fn("S3DestinationWriter.exists")(function* (key: string) {
    yield* checkDestinationKey("check", key)
    return yield* Effect.tryPromise({
      try: () =>
        client.statObject(bucket, name(key)).then(
          () => true,
          (cause) => (["NotFound", "NoSuchKey"].includes(codeOf(cause)) ? false : Promise.reject(cause))
        ),
      catch: s3Failure(target, "check")
    }).pipe(Effect.timeoutOrElse({ duration: SHORT_REQUEST, orElse: unanswered("check") }))
  })

  const remove = Effect.fn("S3DestinationWriter.remove")(function* (key: string) {
    yield* checkDestinationKey("remove", key)
    yield* Effect.tryPromise({ try: () => client.removeObject(bucket, name(key)), catch: s3Failure(target, "remove") }).pipe(
      Effect.timeoutOrElse({ duration: SHORT_REQUEST, orElse: unanswered("remove") })
    )
  })

  return withProbe({ put, exists, remove })
}
