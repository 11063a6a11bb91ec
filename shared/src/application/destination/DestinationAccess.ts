// Extension: the only door to a destination's credentials in clear. Seals them (AES-256-GCM with
// DESTINATIONS_ENCRYPTION_KEY, bound to the project and destination, the cookie vault's cipher) when a destination is
// created, and opens them into a writer's target when something is to be written; nothing else ever sees them.
import { Config, Context, Effect, Layer, Option, Redacted, Schema } from "effect"
import { openCookies, sealCookies } from "../cookies/CookieCipher.ts"
import type { Destination } from "../../domain/destination/DestinationState.ts"
import type { WritableTarget } from "../../destinations/DestinationWriter.ts"

/** The server has no DESTINATIONS_ENCRYPTION_KEY: S3 destinations can be neither created nor used. */
export class DestinationsNotConfigured extends Schema.TaggedError<DestinationsNotConfigured>()("DestinationsNotConfigured", {}) {}
/** The sealed credentials do not open: another key (rotated without re-creating the destination) or tampering. */
export class DestinationCredentialsUnreadable extends Schema.TaggedError<DestinationCredentialsUnreadable>()(
  "DestinationCredentialsUnreadable",
  { destinationId: Schema.String }
) {}

export interface S3Credentials {
  readonly accessKeyId: string
  readonly secretAccessKey: Redacted.Redacted<string>
}

const SealedCredentials = Schema.fromJsonString(Schema.Struct({ accessKeyId: Schema.String, secretAccessKey: Schema.String }))
const decodeSealed = Schema.decodeUnknownOption(SealedCredentials)

/** The slot bound into the authentication tag: a blob copied to another destination or project does not open. */
const slotOf = (projectId: string, destinationId: string) => `destination/${projectId}/${destinationId}`
/** The token's own slot: the credentials' blob does not open as a token, nor the other way round. */
const tokenSlotOf = (projectId: string, destinationId: string) => `destination-refresh/${projectId}/${destinationId}`

export class DestinationAccess extends Context.Service<
  DestinationAccess,
  {
    /** The credentials sealed for this destination (base64), as its creation event carries them. */
    seal(projectId: string, destinationId: string, credentials: S3Credentials): Effect.Effect<string, DestinationsNotConfigured>
    /** The destination's target with its credentials opened: for a DestinationWriter only, never for an answer or a log. */
    open(destination: Destination): Effect.Effect<WritableTarget, DestinationsNotConfigured | DestinationCredentialsUnreadable>
    /** A media server's token sealed for this destination (base64), as its creation event carries it. */
    sealToken(projectId: string, destinationId: string, token: Redacted.Redacted<string>): Effect.Effect<string, DestinationsNotConfigured>
    /** The destination's media server token in clear: for the library refresh's request only. */
    openToken(
      destination: Destination
    ): Effect.Effect<Option.Option<Redacted.Redacted<string>>, DestinationsNotConfigured | DestinationCredentialsUnreadable>
  }
>()("mds/destinations/DestinationAccess") {
  /** 64 hex characters (32 bytes); setup.sh generates one into .data/secrets.env. Without it no S3 destination works. */
  static readonly config = Config.Redacted("DESTINATIONS_ENCRYPTION_KEY").pipe(Config.option)

  static readonly layer = Layer.effect(
    DestinationAccess,
    Effect.gen(function* () {
      const configured = yield* DestinationAccess.config
      const key = Option.map(
        Option.filter(configured, (secret) => Redacted.value(secret).trim() !== ""),
        (secret) => Buffer.from(Redacted.value(secret).trim(), "hex")
      )
      if (Option.isSome(key) && key.value.length !== 32) {
        return yield* Effect.die(new Error("DESTINATIONS_ENCRYPTION_KEY must be 64 hex characters (32 bytes)"))
      }

      const seal = Effect.fn("DestinationAccess.seal")(function* (projectId: string, destinationId: string, credentials: S3Credentials) {
        if (Option.isNone(key)) return yield* new DestinationsNotConfigured()
        const plain = JSON.stringify({ accessKeyId: credentials.accessKeyId, secretAccessKey: Redacted.value(credentials.secretAccessKey) })
        return sealCookies(key.value, slotOf(projectId, destinationId), plain).toString("base64")
      })

      const open = Effect.fn("DestinationAccess.open")(function* (destination: Destination) {
        const { target } = destination
        if (target.kind === "folder") return { kind: "folder", path: target.path } as const
        if (Option.isNone(key)) return yield* new DestinationsNotConfigured()
        const opened = openCookies(
          key.value,
          slotOf(destination.projectId, destination.destinationId),
          Buffer.from(target.sealedCredentials, "base64")
        )
        const credentials = opened === null ? Option.none() : decodeSealed(opened)
        if (Option.isNone(credentials)) return yield* new DestinationCredentialsUnreadable({ destinationId: destination.destinationId })
        return {
          kind: "s3",
          endpoint: target.endpoint,
          bucket: target.bucket,
          region: target.region,
          prefix: target.prefix,
          accessKeyId: Redacted.make(credentials.value.accessKeyId),
          secretAccessKey: Redacted.make(credentials.value.secretAccessKey)
        } as const
      })

      const sealToken = Effect.fn("DestinationAccess.sealToken")(function* (
        projectId: string,
        destinationId: string,
        token: Redacted.Redacted<string>
      ) {
        if (Option.isNone(key)) return yield* new DestinationsNotConfigured()
        return sealCookies(key.value, tokenSlotOf(projectId, destinationId), Redacted.value(token)).toString("base64")
      })

      const openToken = Effect.fn("DestinationAccess.openToken")(function* (destination: Destination) {
        if (destination.refresh === undefined) return Option.none()
        if (Option.isNone(key)) return yield* new DestinationsNotConfigured()
        const opened = openCookies(
          key.value,
          tokenSlotOf(destination.projectId, destination.destinationId),
          Buffer.from(destination.refresh.sealedToken, "base64")
        )
        if (opened === null) return yield* new DestinationCredentialsUnreadable({ destinationId: destination.destinationId })
        return Option.some(Redacted.make(opened))
      })

      return DestinationAccess.of({ seal, open, sealToken, openToken })
    })
  )
}
