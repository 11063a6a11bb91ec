// Behaviour every DestinationWriter adapter must have; run it against each adapter with a writer of its own.
import { mkdtemp, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Readable } from "node:stream"
import { assert, describe, it } from "@effect/vitest"
import { Effect } from "effect"
import type { DestinationWriter } from "@mds/shared/destinations/DestinationWriter"
import { newId } from "@mds/shared/ids/Ids"

const scratch = await mkdtemp(join(tmpdir(), "mds-destination-contract-"))

/** Sends `chunks` then fails, as an upload whose source breaks off (a worker dying, a read error). */
export const breakingStream = (chunks: ReadonlyArray<Buffer>) =>
  new Readable({
    read() {
      const next = chunks[0]
      if (next === undefined) {
        this.destroy(new Error("the source broke off"))
        return
      }
      chunks = chunks.slice(1)
      this.push(next)
    }
  })

export const destinationWriterContract = (name: string, open: () => Promise<DestinationWriter>) =>
  describe(`DestinationWriter contract: ${name}`, { timeout: 120_000 }, () => {
    const writer = () => Effect.promise(open)
    const fresh = () => `shows/${newId("job")}/Episode 1 [1080p].mp4`

    it.effect("puts a local file under its key; it then exists, and is gone once removed", () =>
      Effect.gen(function* () {
        const w = yield* writer()
        const key = fresh()
        const source = join(scratch, newId("job"))
        yield* Effect.promise(() => writeFile(source, "hello video"))
        assert.deepStrictEqual(yield* w.put(key, { path: source }, "video/mp4"), { key, sizeBytes: 11 })
        assert.isTrue(yield* w.exists(key))
        yield* w.remove(key)
        assert.isFalse(yield* w.exists(key))
      })
    )

    it.effect("puts a stream, of a known size or not, and a second put replaces the first", () =>
      Effect.gen(function* () {
        const w = yield* writer()
        const key = fresh()
        assert.strictEqual((yield* w.put(key, { stream: Readable.from([Buffer.from("abc")]), sizeBytes: 3 }, "text/plain")).sizeBytes, 3)
        const second = yield* w.put(key, { stream: Readable.from([Buffer.from("abcdef")]), sizeBytes: null }, "text/plain")
        assert.strictEqual(second.sizeBytes, 6)
        assert.isTrue(yield* w.exists(key))
      })
    )

    it.effect("a source that breaks off leaves nothing under the key (a single request)", () =>
      Effect.gen(function* () {
        const w = yield* writer()
        const key = fresh()
        const error = yield* Effect.flip(w.put(key, { stream: breakingStream([Buffer.alloc(1000, 1)]), sizeBytes: 4000 }, "video/mp4"))
        assert.include(["DestinationFailed", "DestinationUnreachable"], error._tag)
        assert.isFalse(yield* w.exists(key))
      })
    )

    it.effect("a source that breaks off after a whole part leaves nothing under the key (multipart)", () =>
      Effect.gen(function* () {
        const w = yield* writer()
        const key = fresh()
        const parts = Array.from({ length: 17 }, () => Buffer.alloc(1024 * 1024, 7))
        yield* Effect.flip(w.put(key, { stream: breakingStream(parts), sizeBytes: null }, "video/mp4"))
        assert.isFalse(yield* w.exists(key))
      })
    )

    it.effect("removing a key that is not there succeeds", () =>
      Effect.gen(function* () {
        const w = yield* writer()
        yield* w.remove(fresh())
      })
    )

    it.effect("refuses a key that would leave the destination", () =>
      Effect.gen(function* () {
        const w = yield* writer()
        for (const key of ["../escape.mp4", "a/../../b", "/abs.mp4", "a//b", "a\\b", ""]) {
          const error = yield* Effect.flip(w.put(key, { stream: Readable.from([Buffer.from("x")]), sizeBytes: 1 }, "text/plain"))
          assert.strictEqual(error._tag, "DestinationFailed", key)
        }
      })
    )

    it.effect("the probe writes, finds and removes its object", () =>
      Effect.gen(function* () {
        const outcome = yield* (yield* writer()).probe()
        assert.isTrue(outcome.ok, JSON.stringify(outcome))
      })
    )
  })
