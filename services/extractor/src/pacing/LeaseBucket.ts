// The pacing keys' store as a port: create-if-absent, compare-and-set renewal and release, over NATS KV in production.
import type { KV } from "@nats-io/kv"
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import { Effect, Schema } from "effect"

export class LeaseBucketError extends Schema.TaggedError<LeaseBucketError>()("LeaseBucketError", {
  operation: Schema.String,
  message: Schema.String
}) {}

export interface LeaseBucket {
  /** How long a key lives after its last write: the lifetime in force, whoever set it. */
  readonly ttlMs: number
  /** The new key's revision; null when the key exists (somebody holds it). */
  create(key: string, value: string): Effect.Effect<number | null, LeaseBucketError>
  /** The new revision; "lost" when the key is no longer at `revision` (it expired, or another holder took it). */
  update(key: string, value: string, revision: number): Effect.Effect<number | "lost", LeaseBucketError>
  /** Deletes the key if it is still at `revision` (still ours); never fails. */
  release(key: string, revision: number): Effect.Effect<void>
}

/** The key is not at the revision the write expected: it exists (create) or is no longer ours (update). */
const isWrongRevision = (error: unknown) =>
  error instanceof JetStreamApiError &&
  (error.code === JetStreamApiCodes.StreamWrongLastSequence || error.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)

const bucketError = (operation: string) => (cause: unknown) =>
  new LeaseBucketError({ operation, message: cause instanceof Error ? cause.message : String(cause) })

/** A NATS KV bucket with history 1 and `ttlMs` max age. */
export const kvLeaseBucket = (kv: KV, ttlMs: number): LeaseBucket => ({
  ttlMs,
  create: (key, value) =>
    Effect.tryPromise({
      try: () =>
        kv.create(key, value).catch((error: unknown) => {
          // Only "the key exists" means held; anything else (NATS unreachable) is an error the caller judges.
          if (isWrongRevision(error)) return null
          throw error
        }),
      catch: bucketError("create")
    }),
  update: (key, value, revision) =>
    Effect.tryPromise({
      try: () =>
        kv.update(key, value, revision).catch((error: unknown) => {
          if (isWrongRevision(error)) return "lost" as const
          throw error
        }),
      catch: bucketError("update")
    }),
  release: (key, revision) => Effect.promise(() => kv.delete(key, { previousSeq: revision }).catch(() => undefined))
})
