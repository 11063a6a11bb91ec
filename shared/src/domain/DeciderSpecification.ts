// Test-only given/when/then specifications for deciders (Emmett style): given(events).when(command).then(events).
import { Result } from "effect"
import { expect } from "vitest"
import type { Decider } from "./Decider.ts"
import { foldEvents } from "./Decider.ts"

export interface DeciderThen<Event> {
  /** The command succeeds and emits exactly these events. */
  readonly then: (expected: ReadonlyArray<Event>) => void
  /** The command succeeds and emits nothing (an idempotent no-op). */
  readonly thenNothing: () => void
  /** The command is rejected with a tagged error of this tag; returns it for further checks. */
  readonly thenRejects: (tag: string) => unknown
}

export interface DeciderWhen<Command, Event> {
  readonly when: (command: Command) => DeciderThen<Event>
}

export const DeciderSpecification = {
  for:
    <Command, Event, State, Rejection>(decider: Decider<Command, Event, State, Rejection>) =>
    (given: ReadonlyArray<Event>): DeciderWhen<Command, Event> => ({
      when: (command) => {
        const decision = decider.decide(command, foldEvents(decider, given))
        const succeeded = () => {
          if (Result.isFailure(decision)) {
            throw new Error(`expected success, got rejection ${JSON.stringify(decision.failure)}`)
          }
          return decision.success
        }
        return {
          then: (expected) => expect(succeeded()).toEqual(expected),
          thenNothing: () => expect(succeeded()).toEqual([]),
          thenRejects: (tag) => {
            if (Result.isSuccess(decision)) {
              throw new Error(`expected rejection ${tag}, got events ${JSON.stringify(decision.success)}`)
            }
            expect((decision.failure as { readonly _tag?: string })._tag).toBe(tag)
            return decision.failure
          }
        }
      }
    })
}
