// Read a subject, fold, decide, append (all events of a decision at once) with the expected last sequence; retry a
// bounded number of times on conflict.
import { randomUUID } from "node:crypto"
import { Effect, Option, Result } from "effect"
import type { Decider, Evolver } from "../domain/Decider.ts"
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
  /**
   * The aggregate's own read of its state and last sequence, in place of the replay (a snapshot and the events after
   * it, for an aggregate whose subject grows for good: a subscription). It must be as exact as the replay.
   */
  readonly load?: Effect.Effect<{ readonly state: State; readonly lastSeq: number }, EventStoreError>
  readonly maxAttempts?: number
}

export interface HandledCommand<Event, State> {
  readonly events: ReadonlyArray<Event>
  readonly state: State
  readonly lastSeq: number
}

/** An aggregate's state and the sequence of the last event folded into it (0: none). */
export interface AggregateState<State> {
  readonly state: State
  readonly lastSeq: number
}

export interface ReplayOptions {
  /**
   * Evolve from the subject's last event alone: for aggregates whose every event carries their whole state (the
   * admission slots, a platform's health, a webhook endpoint) or facts of which only the latest counts.
   */
  readonly last?: boolean
  /** The state as it was right after the subject's event at this stream sequence (events after it are not read). */
  readonly uptoSeq?: number
}

/**
 * The one read door of every aggregate (Emmett's `aggregateStream`): its subject's events folded with its evolve, the
 * command handler's read and every reader's that decides nothing (`currentBatch`, `currentSubscription`, ...).
 */
export const replayAggregate = <Event, State>(
  evolver: Evolver<Event, State>,
  codec: EventCodec<Event>,
  subject: string,
  options: ReplayOptions = {}
): Effect.Effect<AggregateState<State>, EventStoreError, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    if (options.last === true && options.uptoSeq === undefined) {
      const last = yield* store.readLast(codec, subject)
      return Option.match(last, {
        onNone: () => ({ state: evolver.initialState(), lastSeq: 0 }),
        onSome: (stored) => ({ state: evolver.evolve(evolver.initialState(), stored.event), lastSeq: stored.seq })
      })
    }
    const read = yield* store.readSubject(codec, subject, 0, options.uptoSeq)
    const stored = options.last === true ? read.slice(-1) : read
    return {
      state: stored.reduce((state, item) => evolver.evolve(state, item.event), evolver.initialState()),
      lastSeq: stored.at(-1)?.seq ?? 0
    }
  })

export const handleCommand = <Command, Event, State, Rejection>(
  options: HandleCommandOptions<Command, Event, State, Rejection>
): Effect.Effect<HandledCommand<Event, State>, Rejection | AppendConflict | EventStoreError, EventStore> =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const { codec, command, decider, subject } = options

    const load = options.load ?? replayAggregate(decider, codec, subject, { last: options.hydrate === "last" })

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
      let duplicate = false
      if (events.length === 1) {
        const event = events[0]!
        const appended = yield* store.append(codec, subject, event, { msgId: options.msgId(event, 0), expectedLastSeq: lastSeq })
        ;({ seq: lastSeq, duplicate } = appended)
      } else if (events.length > 1) {
        const batch = events.map((event, index) => ({ event, msgId: options.msgId(event, index) }))
        ;({ seq: lastSeq, duplicate } = yield* store.appendBatch(codec, subject, batch, { expectedLastSeq: lastSeq }))
      }
      // A duplicate is an event with this id stored before: this command's earlier try, or another writer's command
      // whose event has the same id but may say otherwise (a job queued by two rounds, each with its own claim). The
      // state is what the subject holds, read again, not this decision's events folded.
      if (duplicate) return { events, ...(yield* load) }
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

/** What a single call may add: a state believed current, or that the subject cannot exist yet, or its own read. */
export interface CommandCallOptions<State> {
  readonly known?: { readonly state: State; readonly lastSeq: number }
  /** See HandleCommandOptions.load. */
  readonly load?: Effect.Effect<{ readonly state: State; readonly lastSeq: number }, EventStoreError>
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
      ...(options?.known === undefined ? {} : { known: options.known }),
      ...(options?.load === undefined ? {} : { load: options.load })
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
