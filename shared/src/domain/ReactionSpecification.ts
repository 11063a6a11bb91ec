// Test-only given/when/then specifications for reactions: given(state).when(trigger).then(commands).
import { expect } from "vitest"
import type { React } from "./Reaction.ts"

export interface ReactionThen<Command> {
  /** The reaction asks for exactly these commands, in this order. */
  readonly then: (expected: ReadonlyArray<Command>) => void
  /** The reaction asks for nothing. */
  readonly thenNothing: () => void
}

export interface ReactionWhen<Trigger, Command> {
  readonly when: (trigger: Trigger) => ReactionThen<Command>
}

export const ReactionSpecification = {
  for:
    <State, Trigger, Command>(react: React<State, Trigger, Command>) =>
    (given: State): ReactionWhen<Trigger, Command> => ({
      when: (trigger) => {
        const commands = react(given, trigger)
        return {
          then: (expected) => expect(commands).toEqual(expected),
          thenNothing: () => expect(commands).toEqual([])
        }
      }
    })
}
