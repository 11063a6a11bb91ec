// A server-sent event response: the open body and its headers, a heartbeat, and the fiber that writes the events.
import { PassThrough, type Readable } from "node:stream"
import { Effect, Fiber, Schedule } from "effect"
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

/** Writes one event; `id` (when given) is what an EventSource sends back as Last-Event-ID when it reconnects. */
export type SendEvent = (name: string, data: unknown, id?: number) => void

export interface EventStream {
  readonly body: Readable
  readonly headers: Readonly<Record<string, string>>
}

/**
 * Opens the stream and forks `produce`, which writes events until it returns (the stream ends then) or the client
 * goes away (it is interrupted). A failure is logged and ends the stream: the client reconnects after RECONNECT_MS.
 * The gateway's shutdown ends every open stream (LiveStreams.ts). A project holding its limit of open streams on this
 * gateway gets TooManyEventStreams (429) instead.
 */
export const openEventStream = <E, R>(
  name: string,
  projectId: string,
  produce: (send: SendEvent) => Effect.Effect<void, E, R>,
  options: { readonly endAfterMs?: number } = {}
): Effect.Effect<EventStream, TooManyEventStreams, R | EventStreamLimit> =>
  Effect.gen(function* () {
    const { perProject } = yield* EventStreamLimit
    if (perProject > 0 && liveStreamsOf(projectId) >= perProject) return yield* new TooManyEventStreams({ limit: perProject })
    const body = new PassThrough()
    const send: SendEvent = (event, data, id) => {
      body.write(`event: ${event}\n${id === undefined ? "" : `id: ${id}\n`}data: ${JSON.stringify(data)}\n\n`)
    }
    body.write(`retry: ${RECONNECT_MS}\n\n`)
    const heartbeat = Effect.sync(() => body.write(": keep-alive\n\n")).pipe(Effect.repeat(HEARTBEAT), Effect.asVoid)
    const running = Effect.raceFirst(produce(send), heartbeat)
    const fiber = yield* Effect.forkDetach(
      (options.endAfterMs === undefined ? running : running.pipe(Effect.timeoutOption(options.endAfterMs), Effect.asVoid)).pipe(
        Effect.catchCause((cause) => Effect.logWarning(`${name} failed`, cause)),
        Effect.ensuring(Effect.sync(() => body.end()))
      )
    )
    trackLiveStream(body, projectId)
    body.once("close", () => Effect.runFork(Fiber.interrupt(fiber)))
    return { body, headers: EVENT_STREAM_HEADERS }
  })
