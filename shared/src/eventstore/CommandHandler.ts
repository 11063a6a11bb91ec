// Read a subject, fold, decide, append (all events of a decision at once) with the expected last sequence; retry a
// bounded number of times on conflict.
import { randomUUID } from "node:crypto"
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
   * whose events carry their whole state (the admission slots); "new" is for a subject that cannot exist yet
   * (a freshly generated id): no read at all, the append expects an empty subject, and a conflict replays.
   */
  readonly hydrate?: "replay" | "last" | "new"
  /**
   * A state believed current (e.g. kept in memory from the last command): the first attempt decides from it
   * without reading. A stale one costs a conflict, and a rejection is only trusted after a fresh read.
   */
  readonly known?: { readonly state: State; readonly lastSeq: number }
  readonly maxAttempts?: number
}

export interface HandledCommand<Event, State> {
  readonly events: ReadonlyArray<Event>
  readonly state: State
  readonly lastSeq: number
}

/**
 * An aggregate's current state and its subject's last sequence: every event of the subject folded with its decider's
 * evolve (the command handler's "replay" read; readers that decide nothing ask the same way).
 */
export const replayAggregate = <Command, Event, State, Rejection>(
  decider: Decider<Command, Event, State, Rejection>,
  codec: EventCodec<Event>,
  subject: string
): Effect.Effect<{ readonly state: State; readonly lastSeq: number }, EventStoreError, EventStore> =>
  Effect.gen(function* () {
    const stored = yield* (yield* EventStore).readSubject(codec, subject)
    return {
      state: stored.reduce((state, item) => decider.evolve(state, item.event), decider.initialState()),
      lastSeq: stored.at(-1)?.seq ?? 0
    }
  })

export const handleCommand = <Command, Event, State, Rejection>(
  options: HandleCommandOptions<Command, Event, State, Rejection>
): Effect.Effect<HandledCommand<Event, State>, Rejection | AppendConflict | EventStoreError, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const { codec, command, decider, subject } = options

    const load =
      options.hydrate === "last"
        ? Effect.map(store.readLast(codec, subject), (last) =>
            Option.match(last, {
              onNone: () => ({ state: decider.initialState(), lastSeq: 0 }),
              onSome: (stored) => ({ state: decider.evolve(decider.initialState(), stored.event), lastSeq: stored.seq })
            })
          )
        : replayAggregate(decider, codec, subject)

    // Used by the first attempt only; every retry reads the subject.
    let assumed: { readonly state: State; readonly lastSeq: number } | undefined =
      options.hydrate === "new" ? { state: decider.initialState(), lastSeq: 0 } : options.known

    const attempt = Effect.gen(function* () {
      const fromAssumed = assumed
      assumed = undefined
      let { state, lastSeq } = fromAssumed ?? (yield* load)
      let decision = decider.decide(command, state)
      if (Result.isFailure(decision) && fromAssumed !== undefined) {
        ;({ state, lastSeq } = yield* load)
        decision = decider.decide(command, state)
      }
      if (Result.isFailure(decision)) return yield* Effect.fail(decision.failure)
      const events = decision.success
      // One decision is one append: several events go as one atomic batch, so a crash never leaves half of them.
      if (events.length === 1) {
        const event = events[0]!
        lastSeq = (yield* store.append(codec, subject, event, { msgId: options.msgId(event, 0), expectedLastSeq: lastSeq })).seq
      } else if (events.length > 1) {
        const batch = events.map((event, index) => ({ event, msgId: options.msgId(event, index) }))
        lastSeq = (yield* store.appendBatch(codec, subject, batch, { expectedLastSeq: lastSeq })).seq
      }
      for (const event of events) state = decider.evolve(state, event)
      return { events, state, lastSeq }
    })

    return yield* attempt.pipe(
      Effect.retry({
        while: (error) => error instanceof AppendConflict,
        times: (options.maxAttempts ?? 8) - 1
      })
    )
  })

/** How one aggregate handles every command: its decider, its events' codec and its one deduplication rule. */
export interface AggregateRules<Command, Event, State, Rejection> {
  readonly decider: Decider<Command, Event, State, Rejection>
  readonly codec: EventCodec<Event>
  /** "replay" (the default) or "last", see HandleCommandOptions. */
  readonly hydrate?: "replay" | "last"
  /**
   * The deduplication id of the n-th event a command appends, stable across the handler's retries. `invocation` is
   * one random id per handled command, for aggregates whose events carry nothing that tells two commands apart.
   */
  readonly msgId: (event: Event, index: number, invocation: () => string) => string
}

/** What a single call may add: a state believed current, or that the subject cannot exist yet. */
export interface CommandCallOptions<State> {
  readonly known?: { readonly state: State; readonly lastSeq: number }
  /** The subject's id was generated for this command: nothing to read, the append expects an empty subject. */
  readonly isNew?: boolean
}

export type BoundCommandHandler<Command, Event, State, Rejection> = (
  subject: string,
  command: Command,
  options?: CommandCallOptions<State>
) => Effect.Effect<HandledCommand<Event, State>, Rejection | AppendConflict | EventStoreError, EventStore>

/** Binds an aggregate's rules once (Emmett's `CommandHandler(evolve, initialState)`); call sites pass subject and command. */
export const commandHandler =
  <Command, Event, State, Rejection>(
    rules: AggregateRules<Command, Event, State, Rejection>
  ): BoundCommandHandler<Command, Event, State, Rejection> =>
  (subject, command, options) => {
    let id: string | undefined
    const invocation = () => (id ??= randomUUID())
    return handleCommand({
      decider: rules.decider,
      codec: rules.codec,
      subject,
      command,
      msgId: (event, index) => rules.msgId(event, index, invocation),
      hydrate: options?.isNew === true ? "new" : (rules.hydrate ?? "replay"),
      ...(options?.known === undefined ? {} : { known: options.known })
    })
  }

/** The handler of one aggregate instance, its subject named by `subjectOf`: `commands(...ids)(command, options)`. */
export const forSubject =
  <Ids extends ReadonlyArray<string>, Command, Event, State, Rejection>(
    handle: BoundCommandHandler<Command, Event, State, Rejection>,
    subjectOf: (...ids: Ids) => string
  ) =>
  (...ids: Ids) => {
    const subject = subjectOf(...ids)
    return (command: Command, options?: CommandCallOptions<State>) => handle(subject, command, options)
  }
