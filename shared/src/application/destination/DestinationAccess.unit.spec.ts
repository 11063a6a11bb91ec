// Credentials are sealed for one destination and open only for it, only with the server's key.
import { randomBytes } from "node:crypto"
import { ConfigProvider, Effect, Layer, Redacted } from "effect"
import { describe, expect, it } from "vitest"
import type { Destination } from "../../domain/destination/DestinationState.ts"
import { DestinationAccess } from "./DestinationAccess.ts"

const withKey = (env: Record<string, string>) =>
  DestinationAccess.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))))
const run = <A, E>(effect: Effect.Effect<A, E, DestinationAccess>, env: Record<string, string>) =>
  Effect.runPromise(Effect.result(effect).pipe(Effect.provide(withKey(env))))

const key = { DESTINATIONS_ENCRYPTION_KEY: randomBytes(32).toString("hex") }
const credentials = { accessKeyId: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: Redacted.make("wJalrXUtnFEMI-secret") }
const destinationWith = (sealedCredentials: string, destinationId = "dst_a"): Destination => ({
  projectId: "prj_a",
  destinationId,
  name: "NAS",
  target: {
    kind: "s3",
    endpoint: "https://s3.example.com",
    bucket: "media",
    region: "us-east-1",
    prefix: "",
    accessKeyHint: "MPLE",
    sealedCredentials
  },
  createdBy: "project",
  createdAt: 0,
  removed: false
})

describe("DestinationAccess", () => {
  it("seals without the credentials in clear and opens them back for the same destination", async () => {
    const opened = await run(
      Effect.gen(function* () {
        const access = yield* DestinationAccess
        const sealed = yield* access.seal("prj_a", "dst_a", credentials)
        const bytes = Buffer.from(sealed, "base64").toString("latin1")
        expect(sealed).not.toContain("AKIAIOSFODNN7EXAMPLE")
        expect(bytes).not.toContain("AKIAIOSFODNN7EXAMPLE")
        expect(bytes).not.toContain("wJalrXUtnFEMI-secret")
        return yield* access.open(destinationWith(sealed))
      }),
      key
    )
    expect(opened._tag).toBe("Success")
    if (opened._tag === "Success" && opened.success.kind === "s3") {
      expect(Redacted.value(opened.success.accessKeyId)).toBe("AKIAIOSFODNN7EXAMPLE")
      expect(Redacted.value(opened.success.secretAccessKey)).toBe("wJalrXUtnFEMI-secret")
      expect(JSON.stringify(opened.success)).not.toContain("wJalrXUtnFEMI-secret")
    }
  })

  it("refuses to open them for another destination or with another key, and to seal without a key", async () => {
    const sealed = await run(
      Effect.flatMap(DestinationAccess, (a) => a.seal("prj_a", "dst_a", credentials)),
      key
    )
    if (sealed._tag !== "Success") throw new Error("sealing failed")
    const moved = await run(
      Effect.flatMap(DestinationAccess, (a) => a.open(destinationWith(sealed.success, "dst_b"))),
      key
    )
    expect(moved._tag === "Failure" && moved.failure._tag).toBe("DestinationCredentialsUnreadable")
    const otherKey = { DESTINATIONS_ENCRYPTION_KEY: randomBytes(32).toString("hex") }
    const rekeyed = await run(
      Effect.flatMap(DestinationAccess, (a) => a.open(destinationWith(sealed.success))),
      otherKey
    )
    expect(rekeyed._tag === "Failure" && rekeyed.failure._tag).toBe("DestinationCredentialsUnreadable")
    const unkeyed = await run(
      Effect.flatMap(DestinationAccess, (a) => a.seal("prj_a", "dst_a", credentials)),
      {}
    )
    expect(unkeyed._tag === "Failure" && unkeyed.failure._tag).toBe("DestinationsNotConfigured")
  })
})

describe("DestinationAccess: a media server's token", () => {
  const withRefresh = (sealedToken: string, destinationId = "dst_a"): Destination => ({
    ...destinationWith("", destinationId),
    refresh: { kind: "jellyfin", url: "http://jellyfin.lan:8096", sealedToken }
  })

  it("is sealed without the token in clear, opens for its destination only, and not as credentials", async () => {
    const outcome = await run(
      Effect.gen(function* () {
        const access = yield* DestinationAccess
        const sealed = yield* access.sealToken("prj_a", "dst_a", Redacted.make("jellyfin-api-key-0123"))
        expect(Buffer.from(sealed, "base64").toString("latin1")).not.toContain("jellyfin-api-key-0123")
        const opened = yield* access.openToken(withRefresh(sealed))
        expect(opened._tag === "Some" ? Redacted.value(opened.value) : null).toBe("jellyfin-api-key-0123")
        const elsewhere = yield* Effect.result(access.openToken(withRefresh(sealed, "dst_b")))
        expect(elsewhere._tag).toBe("Failure")
        const asCredentials = yield* Effect.result(access.open(destinationWith(sealed)))
        expect(asCredentials._tag).toBe("Failure")
        const none = yield* access.openToken(destinationWith(""))
        expect(none._tag).toBe("None")
      }),
      key
    )
    expect(outcome._tag).toBe("Success")
  })
})
