// Extension: the port through which files reach a project's destination (an S3-compatible bucket, or a folder on the
// host): put (atomic: a partial upload never shows under its final name), exists, remove, and a probe that writes and
// removes an object. Adapters: S3DestinationWriter, FolderDestinationWriter; DestinationWriters opens one for a target.
import { randomBytes } from "node:crypto"
import { Readable } from "node:stream"
import { Clock, Duration, Effect, type Redacted, Result, Schema } from "effect"

const failureFields = { operation: Schema.String, message: Schema.String }

/** The destination refused the credentials or the write (S3 AccessDenied, InvalidAccessKeyId, ...; a folder's EACCES). */
export class DestinationDenied extends Schema.TaggedError<DestinationDenied>()("DestinationDenied", failureFields) {}
/** No answer: the name does not resolve, the connection is refused or times out, or the egress guard refuses it. */
export class DestinationUnreachable extends Schema.TaggedError<DestinationUnreachable>()("DestinationUnreachable", failureFields) {}
/** The bucket or folder does not exist. */
export class DestinationMissing extends Schema.TaggedError<DestinationMissing>()("DestinationMissing", failureFields) {}
/** Anything else the destination answered (a full disk, an unexpected S3 error). */
export class DestinationFailed extends Schema.TaggedError<DestinationFailed>()("DestinationFailed", failureFields) {}

export type DestinationError = DestinationDenied | DestinationUnreachable | DestinationMissing | DestinationFailed

/** The codes a test answer (and a delivery's failure) names, one per failure. */
export const DestinationErrorCode = Schema.Literals([
  "destination_denied",
  "destination_unreachable",
  "destination_missing",
  "destination_failed"
])
export type DestinationErrorCode = typeof DestinationErrorCode.Type

export const destinationErrorCode = (error: DestinationError): DestinationErrorCode => {
  switch (error._tag) {
    case "DestinationDenied":
      return "destination_denied"
    case "DestinationUnreachable":
      return "destination_unreachable"
    case "DestinationMissing":
      return "destination_missing"
    case "DestinationFailed":
      return "destination_failed"
  }
}

/** A destination with its credentials opened (DestinationAccess): handed to a writer, never shown or logged. */
export type WritableTarget =
  | {
      readonly kind: "s3"
      readonly endpoint: string
      readonly bucket: string
      readonly region: string
      readonly prefix: string
      readonly accessKeyId: Redacted.Redacted<string>
      readonly secretAccessKey: Redacted.Redacted<string>
    }
  | { readonly kind: "folder"; readonly path: string }

/** A local file, or a stream (of a known size when it is known: S3 then uploads it in one request up to its part size). */
export type PutSource = { readonly path: string } | { readonly stream: Readable; readonly sizeBytes: number | null }

export const MAX_DESTINATION_KEY_LENGTH = 1024

/**
 * A key a writer accepts: relative, `/`-separated, no empty, `.` or `..` segment, no backslash or control character.
 * Naming (templates, sanitizing titles) is the caller's; this only keeps a key inside its destination.
 */
export const isSafeDestinationKey = (key: string): boolean =>
  key.length > 0 &&
  key.length <= MAX_DESTINATION_KEY_LENGTH &&
  !/[\\\u0000-\u001f\u007f]/u.test(key) &&
  key.split("/").every((segment) => segment !== "" && segment !== "." && segment !== "..")

export const checkDestinationKey = (operation: string, key: string) =>
  isSafeDestinationKey(key)
    ? Effect.void
    : Effect.fail(new DestinationFailed({ operation, message: `unsafe key ${JSON.stringify(key.slice(0, 100))}` }))

/** What an adapter provides; `probe` is built on it once (`withProbe`). */
export interface DestinationOperations {
  /** Writes the whole object under `key` or nothing: a failed or partial upload never shows under `key`. */
  put(
    key: string,
    source: PutSource,
    contentType: string
  ): Effect.Effect<{ readonly key: string; readonly sizeBytes: number }, DestinationError>
  exists(key: string): Effect.Effect<boolean, DestinationError>
  /** Removing a key that is not there succeeds. */
  remove(key: string): Effect.Effect<void, DestinationError>
}

export type ProbeStep = "write" | "check" | "remove"

export type ProbeOutcome =
  | { readonly ok: true; readonly durationMs: number }
  | {
      readonly ok: false
      readonly step: ProbeStep
      readonly code: DestinationErrorCode
      readonly message: string
      readonly durationMs: number
    }

export interface DestinationWriter extends DestinationOperations {
  /** Writes, finds and removes a small probe object; answers the first step that failed and why. */
  probe(): Effect.Effect<ProbeOutcome>
}

const PROBE_STEP_TIMEOUT = Duration.seconds(30)

/** The probe's object: hidden-looking, unique, removed at once (a failed remove leaves one small file behind). */
export const probeKey = () => `.mds-probe-${randomBytes(8).toString("hex")}`

export const withProbe = (operations: DestinationOperations): DestinationWriter => ({
  ...operations,
  probe: Effect.fn("DestinationWriter.probe")(function* () {
    const started = yield* Clock.currentTimeMillis
    const elapsed = Effect.map(Clock.currentTimeMillis, (now) => now - started)
    const key = probeKey()
    const body = Buffer.from("media-download-service destination probe\n")
    const steps: ReadonlyArray<readonly [ProbeStep, Effect.Effect<unknown, DestinationError>]> = [
      ["write", operations.put(key, { stream: Readable.from([body]), sizeBytes: body.length }, "text/plain")],
      [
        "check",
        Effect.flatMap(operations.exists(key), (found) =>
          found
            ? Effect.void
            : Effect.fail(new DestinationFailed({ operation: "check", message: "the probe object is not there after writing it" }))
        )
      ],
      ["remove", operations.remove(key)]
    ]
    for (const [step, run] of steps) {
      // Each step is one small request: one with no answer (a host that takes the connection and stays silent) is unreachable.
      const outcome = yield* Effect.result(
        run.pipe(
          Effect.timeoutOrElse({
            duration: PROBE_STEP_TIMEOUT,
            orElse: () =>
              Effect.fail(
                new DestinationUnreachable({ operation: step, message: `no answer within ${Duration.format(PROBE_STEP_TIMEOUT)}` })
              )
          })
        )
      )
      if (Result.isFailure(outcome)) {
        const error = outcome.failure
        return { ok: false, step, code: destinationErrorCode(error), message: error.message, durationMs: yield* elapsed } as const
      }
    }
    return { ok: true, durationMs: yield* elapsed } as const
  })
})
