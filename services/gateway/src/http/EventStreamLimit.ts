// What one project's server-sent event streams may hold on one gateway: how many may be open at once
// (EVENT_STREAMS_PER_PROJECT; 0: no limit), how much each may buffer for a client that reads slower than it writes
// (EVENT_STREAM_BUFFER_BYTES), and how long a full buffer may wait for the client before it is disconnected
// (EVENT_STREAM_STALL_SECONDS). Each open stream follows the job stream: without these, one key could hold an
// unbounded number of them, and one that stops reading would have the gateway buffer the project's whole history.
import { byteSizeConfig } from "@mds/shared/config/ByteSize"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { Config, Context, Effect, Layer } from "effect"

export class EventStreamLimit extends Context.Service<
  EventStreamLimit,
  { readonly perProject: number; readonly bufferBytes: number; readonly stallMs: number }
>()("mds/gateway/http/EventStreamLimit") {
  static readonly config = Config.all({
    perProject: Config.Int("EVENT_STREAMS_PER_PROJECT").pipe(Config.withDefault(16)),
    bufferBytes: byteSizeConfig("EVENT_STREAM_BUFFER_BYTES", "1MB"),
    stallMs: secondsAsMs("EVENT_STREAM_STALL_SECONDS", 30)
  })

  static readonly layer = Layer.effect(
    EventStreamLimit,
    Effect.map(EventStreamLimit.config, ({ perProject, bufferBytes, stallMs }) =>
      EventStreamLimit.of({
        perProject: Math.max(0, perProject),
        bufferBytes: Math.max(1024, bufferBytes),
        stallMs: Math.max(100, stallMs)
      })
    )
  )
}
