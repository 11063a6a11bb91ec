// The decider shape every aggregate follows: pure functions, no I/O, time arrives in the command.
import type { Result } from "effect"

export interface Decider<Command, Event, State, Rejection> {
  readonly initialState: () => State
  readonly evolve: (state: State, event: Event) => State
  readonly decide: (command: Command, state: State) => Result.Result<ReadonlyArray<Event>, Rejection>
}

/** Folds a list of events from the initial state. */
export const foldEvents = <Command, Event, State, Rejection>(
  decider: Decider<Command, Event, State, Rejection>,
  events: Iterable<Event>
): State => {
  let state = decider.initialState()
  for (const event of events) state = decider.evolve(state, event)
  return state
}
