// The decider shape every aggregate follows: pure functions, no I/O, time arrives in the command.
import { Result } from "effect"

export interface Decider<Command, Event, State, Rejection> {
  readonly initialState: () => State
  readonly evolve: (state: State, event: Event) => State
  readonly decide: (command: Command, state: State) => Decision<Event, Rejection>
}

/** How a state follows from events: what a reader of an aggregate (or of a log of facts) needs of it. */
export type Evolver<Event, State> = Pick<Decider<never, Event, State, never>, "initialState" | "evolve">

/** What `decide` answers: the events to append (none: the command changes nothing), or why it is refused. */
export type Decision<Event, Rejection> = Result.Result<ReadonlyArray<Event>, Rejection>

/** The command changes nothing: a repeat of one already decided, or nothing to do in this state. */
export const none: Decision<never, never> = Result.succeed([])

/** The command's events, in the order they are appended (their type is the decision's the caller returns). */
export const emit = <Event>(...events: ReadonlyArray<NoInfer<Event>>): Decision<Event, never> => Result.succeed(events)

/** Folds a list of events from the initial state. */
export const foldEvents = <Event, State>(evolver: Evolver<Event, State>, events: Iterable<Event>): State => {
  let state = evolver.initialState()
  for (const event of events) state = evolver.evolve(state, event)
  return state
}
