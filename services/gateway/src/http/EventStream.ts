// A server-sent event response: the open body and its headers, a heartbeat, and the fiber that writes the events, held
// to a bounded buffer: a client that reads slower waits the writer, one that stops reading is disconnected.
import { PassThrough, type Readable } from "node:stream"
import { Cause, Effect, Fiber, Schedule } from "effect"
import { TooManyEventStreams } from "../limits/LimitErrors.ts"
import { EventStreamLimit } from "./EventStreamLimit.ts"
import { liveStreamsOf, trackLiveStream } from "./LiveStreams.ts"

/** Comment lines keep proxies from closing an idle stream. */
const HEARTBEAT = Schedule.spaced("15 seconds")
/** Tells EventSource clients how long to wait before reconnecting. */
export const RECONNECT_MS = 3_000

export const EVENT_STREAM_HEADERS: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream; charset=utf-8",
  "cache-control": "no-cache, no-transform",
  // nginx and similar proxies would otherwise buffer the stream.
  "x-accel-buffering": "no",
  // The connection closes with the stream. Kept alive, one that ended on shutdown after the server had closed its idle
  // connections would hold the close for the whole keep-alive timeout (72 s).
  connection: "close"
}

/**
 * Writes one event; `id` (when given) is what an EventSource sends back as Last-Event-ID when it reconnects. It
 * completes once the event fits the stream's buffer: while the buffer is full it waits for the client to read, so
 * whatever feeds the stream waits too.
 */
export type SendEvent = (name: string, data: unknown, id?: number) => Effect.Effect<void>

export interface EventStream {
  readonly body: Readable
  readonly headers: Readonly<Record<string, string>>
}

/**
 * Opens the stream and forks `produce`, which writes events until it returns (the stream ends then) or the client
 * goes away (it is interrupted). A failure is logged and ends the stream: the client reconnects after RECONNECT_MS.
 * The gateway's shutdown ends every open stream (LiveStreams.ts). A project holding its limit of open streams on this
 * gateway gets TooManyEventStreams (429) instead.
 *
 * The body buffers at most EVENT_STREAM_BUFFER_BYTES (half on each side of the PassThrough) beyond what the socket
 * and the kernel hold; a send that finds it full waits for the client to read. A client that reads nothing for
 * EVENT_STREAM_STALL_SECONDS while the buffer is full is disconnected: its memory goes with it, and an EventSource
 * that reconnects resumes after the last event it read (Last-Event-ID).
 */
export const openEventStream = <E, R>(
  name: string,
  projectId: string,
  produce: (send: SendEvent) => Effect.Effect<void, E, R>,
  options: { readonly endAfterMs?: number } = {}
): Effect.Effect<EventStream, TooManyEventStreams, R | EventStreamLimit> =>
  Effect.gen(function* () {
    const { perProject, bufferBytes, stallMs } = yield* EventStreamLimit
    if (perProject > 0 && liveStreamsOf(projectId) >= perProject) return yield* new TooManyEventStreams({ limit: perProject })
    const body = new PassThrough({ highWaterMark: Math.ceil(bufferBytes / 2) })
    const open = () => !body.destroyed && body.writable

    /** Resumes once the client took some of the buffer (or the stream closed): true; after stallMs without: false. */
    const drained = Effect.callback<boolean>((resume) => {
      const onDrain = () => {
        body.off("close", onDrain)
        resume(Effect.succeed(true))
      }
      body.once("drain", onDrain)
      body.once("close", onDrain)
      return Effect.sync(() => {
        body.off("drain", onDrain)
        body.off("close", onDrain)
      })
    }).pipe(
      Effect.timeoutOption(stallMs),
      Effect.map((read) => read._tag === "Some")
    )

    const send: SendEvent = (event, data, id) =>
      Effect.suspend(() => {
        if (!open()) return Effect.interrupt
        const fits = body.write(`event: ${event}\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`)
        if (fits) return Effect.void
        return Effect.flatMap(drained, (read) =>
          read
            ? Effect.void
            : Effect.logInfo(`${name}: the client read nothing for ${stallMs} ms with its buffer full; disconnected`, {
                projectId,
                unreadBytes: body.writableLength + body.readableLength
              }).pipe(Effect.andThen(Effect.sync(() => body.destroy())), Effect.andThen(Effect.interrupt))
        )
      })

    body.write(`retry: ${RECONNECT_MS}\n\n`)
    const heartbeat = Effect.sync(() => (open() ? body.write(": keep-alive\n\n") : false)).pipe(Effect.repeat(HEARTBEAT), Effect.asVoid)
    const running = Effect.raceFirst(produce(send), heartbeat)
    const fiber = yield* Effect.forkDetach(
      (options.endAfterMs === undefined ? running : running.pipe(Effect.timeoutOption(options.endAfterMs), Effect.asVoid)).pipe(
        // A stream closed under it (the client left, or was disconnected for not reading) is no failure.
        Effect.catchCause((cause) => (Cause.hasInterruptsOnly(cause) ? Effect.void : Effect.logWarning(`${name} failed`, cause))),
        Effect.ensuring(Effect.sync(() => body.end()))
      )
    )
    trackLiveStream(body, projectId)
    body.once("close", () => Effect.runFork(Fiber.interrupt(fiber)))
    return { body, headers: EVENT_STREAM_HEADERS }
  })
