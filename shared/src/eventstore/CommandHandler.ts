// Read a subject, fold, decide, append with the expected last sequence; retry a bounded number of times on conflict.
import { Effect, Option, Result } from "effect"
import type { Decider } from "../domain/Decider.ts"
import { AppendConflict, type EventCodec, EventStore, type EventStoreError } from "./EventStore.ts"

export interface HandleCommandOptions<Command, Event, State, Rejection> {
  readonly decider: Decider<Command, Event, State, Rejection>
  readonly codec: EventCodec<Event>
  readonly subject: string
  readonly command: Command
  /** Deduplication id of the n-th event this command appends; stable across retries of the same command. */
  readonly msgId: (event: Event, index: number) => string
  /**
   * "replay" folds every event of the subject; "last" evolves from the last event alone, for aggregates
   * whose events carry their whole state (the admission slots).
   */
  readonly hydrate?: "replay" | "last"
  readonly maxAttempts?: number
}

export interface HandledCommand<Event, State> {
  readonly events: ReadonlyArray<Event>
  readonly state: State
  readonly lastSeq: number
}

export const handleCommand = <Command, Event, State, Rejection>(
  options: HandleCommandOptions<Command, Event, State, Rejection>
): Effect.Effect<HandledCommand<Event, State>, Rejection | AppendConflict | EventStoreError, EventStore> =>
  Effect.gen(function*() {
    const store = yield* EventStore
    const { codec, command, decider, subject } = options

    const load = options.hydrate === "last"
      ? Effect.map(store.readLast(codec, subject), (last) =>
        Option.match(last, {
          onNone: () => ({ state: decider.initialState(), lastSeq: 0 }),
          onSome: (stored) => ({ state: decider.evolve(decider.initialState(), stored.event), lastSeq: stored.seq })
        }))
      : Effect.map(store.readSubject(codec, subject), (stored) => ({
        state: stored.reduce((state, item) => decider.evolve(state, item.event), decider.initialState()),
        lastSeq: stored.at(-1)?.seq ?? 0
      }))

    const attempt = Effect.gen(function*() {
      let { state, lastSeq } = yield* load
      const decision = decider.decide(command, state)
      if (Result.isFailure(decision)) return yield* Effect.fail(decision.failure)
      const events = decision.success
      for (const [index, event] of events.entries()) {
        const appended = yield* store.append(codec, subject, event, {
          msgId: options.msgId(event, index),
          expectedLastSeq: lastSeq
        })
        lastSeq = appended.seq
        state = decider.evolve(state, event)
      }
      return { events, state, lastSeq }
    })

    return yield* attempt.pipe(
      Effect.retry({
        while: (error) => error instanceof AppendConflict,
        times: (options.maxAttempts ?? 8) - 1
      })
    )
  })
