// How many server-sent event streams one project may hold open on one gateway (EVENT_STREAMS_PER_PROJECT; 0: no limit).
// Each open stream follows the job stream and remembers up to a thousand jobs: without a bound, one key could hold an
// unbounded number of them.
import { Config, Context, Effect, Layer } from "effect"

export class EventStreamLimit extends Context.Service<EventStreamLimit, { readonly perProject: number }>()(
  "mds/gateway/http/EventStreamLimit"
) {
  static readonly config = Config.Int("EVENT_STREAMS_PER_PROJECT").pipe(Config.withDefault(16))

  static readonly layer = Layer.effect(
    EventStreamLimit,
    Effect.map(EventStreamLimit.config, (perProject) => EventStreamLimit.of({ perProject: Math.max(0, perProject) }))
  )
}
