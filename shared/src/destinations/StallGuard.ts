// Extension: a put whose data stops moving ends. A destination that takes the connection and then stops reading or
// answering (or a source that stops sending) would otherwise hold its delivery for good, and with it one of the
// deliverer's lanes that every project's deliveries share. The put's bytes are counted on their way through; when
// none moved for a whole stall period, the put fails DestinationUnreachable (a delivery tried again later) and its
// stream is destroyed, so the adapter drops what it started (S3 aborts the upload, a folder removes its temp file).
import { createReadStream } from "node:fs"
import { stat } from "node:fs/promises"
import { pipeline, Transform } from "node:stream"
import { Config, Duration, Effect } from "effect"
import { type DestinationOperations, DestinationUnreachable, type PutSource } from "./DestinationWriter.ts"

/** DESTINATION_STALL_SECONDS: how long a put may move no byte (sending, or waiting for the answer) before it fails. */
export const destinationStall = Config.Int("DESTINATION_STALL_SECONDS").pipe(
  Config.withDefault(60),
  Config.map((seconds) => Duration.seconds(seconds))
)

/** How long a given-up put has to drop what it started (an aborted upload, a temp file) before the failure is answered. */
const CLEANUP_GRACE = Duration.seconds(5)

/** The source as a stream of known size where it has one (a file: its size now). */
const opened = (source: PutSource) =>
  "stream" in source
    ? Effect.succeed(source)
    : Effect.promise(async () => {
        const { size } = await stat(source.path)
        return { stream: createReadStream(source.path), sizeBytes: size }
      })

/** `operations` whose put fails once no byte moved for `stall` (detected within one to two periods). */
export const withStallGuard = <W extends DestinationOperations>(operations: W, stall: Duration.Duration): W => ({
  ...operations,
  put: (key, source, contentType) =>
    Effect.gen(function* () {
      const { stream, sizeBytes } = yield* opened(source).pipe(
        // A file that cannot be opened is the adapter's to name (as it would unguarded).
        Effect.catchCause(() => Effect.succeed(null)),
        Effect.map((value) => value ?? { stream: null, sizeBytes: null })
      )
      if (stream === null) return yield* operations.put(key, source, contentType)
      let moved = 0
      const counted = new Transform({
        transform(chunk: Buffer, _encoding, done) {
          moved += chunk.length
          done(null, chunk)
        }
      })
      // The source's failure reaches the counted stream (and so the adapter); destroying the counted one ends the source.
      pipeline(stream, counted, () => undefined)
      const stalled = new DestinationUnreachable({
        operation: "write",
        message: `no data moved for ${Duration.format(stall)} (the destination stopped reading or answering, or the source stopped)`
      })
      let gaveUp = false
      const watchdog = Effect.gen(function* () {
        let seen = -1
        while (seen !== moved) {
          seen = moved
          yield* Effect.sleep(stall)
        }
        // The adapter's put sees its source fail and drops what it started (and ends here, as the stalled failure); one
        // stuck waiting for an answer that never comes is left behind after the grace.
        gaveUp = true
        counted.destroy(new Error(stalled.message))
        yield* Effect.sleep(CLEANUP_GRACE)
        return yield* stalled
      })
      const put = operations
        .put(key, { stream: counted, sizeBytes }, contentType)
        .pipe(Effect.catch((error) => Effect.fail(gaveUp ? stalled : error)))
      // However it ended (done, refused before reading, given up, interrupted): the streams are closed, the source's
      // file or artifact handle with them (destroying a stream that was read to its end changes nothing).
      return yield* Effect.raceFirst(put, watchdog).pipe(Effect.ensuring(Effect.sync(() => counted.destroy())))
    })
})
