// An in-memory LeaseBucket with NATS KV's semantics (revisions, create-if-absent, max age on the Effect clock), for tests.
import { Clock, Effect } from "effect"
import { type LeaseBucket, LeaseBucketError } from "./LeaseBucket.ts"

export interface MemoryLeaseBucket extends LeaseBucket {
  /** The next `count` updates fail as if NATS could not be reached. */
  failUpdates(count: number): void
  /** Keys alive now. */
  readonly liveKeys: Effect.Effect<ReadonlyArray<string>>
  /** Removes a key as its expiry or an operator would. */
  drop(key: string): void
}

export const makeMemoryLeaseBucket = (ttlMs: number): MemoryLeaseBucket => {
  const entries = new Map<string, { revision: number; writtenAt: number }>()
  let sequence = 0
  let failing = 0
  const live = (key: string, now: number) => {
    const entry = entries.get(key)
    if (entry === undefined) return null
    if (now - entry.writtenAt >= ttlMs) {
      entries.delete(key)
      return null
    }
    return entry
  }
  return {
    ttlMs,
    create: (key) =>
      Effect.map(Clock.currentTimeMillis, (now) => {
        if (live(key, now) !== null) return null
        sequence++
        entries.set(key, { revision: sequence, writtenAt: now })
        return sequence
      }),
    update: (key, _value, revision) =>
      Effect.flatMap(Clock.currentTimeMillis, (now): Effect.Effect<number | "lost", LeaseBucketError> => {
        if (failing > 0) {
          failing--
          return Effect.fail(new LeaseBucketError({ operation: "update", message: "no responders" }))
        }
        if (live(key, now)?.revision !== revision) return Effect.succeed("lost" as const)
        sequence++
        entries.set(key, { revision: sequence, writtenAt: now })
        return Effect.succeed(sequence)
      }),
    release: (key, revision) =>
      Effect.sync(() => {
        if (entries.get(key)?.revision === revision) entries.delete(key)
      }),
    failUpdates: (count) => {
      failing = count
    },
    liveKeys: Effect.map(Clock.currentTimeMillis, (now) => [...entries.keys()].filter((key) => live(key, now) !== null)),
    drop: (key) => {
      entries.delete(key)
    }
  }
}
