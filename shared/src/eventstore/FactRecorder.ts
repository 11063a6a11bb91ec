// Facts (what happened outside any aggregate's decision: a resolve, a key's use, a fleet report, a delivery attempt, a
// work message) go through one door, bound once per fact like a command handler: one codec, one subject rule, one id rule.
import { randomUUID } from "node:crypto"
import { Effect } from "effect"
import { type AppendResult, type EventCodec, EventStore, type EventStoreError } from "./EventStore.ts"

export interface FactRules<A> {
  readonly codec: EventCodec<A>
  /**
   * The fact's deduplication id: recording the same fact twice within the window stores one message. `invocation` is a
   * random id per call, for facts whose content does not tell two of them apart (an operator's repeated choice).
   */
  readonly msgId: (fact: A, invocation: () => string) => string
}

export type BoundFactRecorder<A> = (subject: string, fact: A) => Effect.Effect<AppendResult, EventStoreError, EventStore>

/** Binds a fact's rules once; call sites pass only the subject and the fact. */
export const factRecorder =
  <A>(rules: FactRules<A>): BoundFactRecorder<A> =>
  (subject, fact) =>
    Effect.gen(function* () {
      const store = yield* EventStore
      return yield* store
        .append(rules.codec, subject, fact, { msgId: rules.msgId(fact, () => randomUUID()) })
        // A fact has no expected sequence, so the only failure is the store's.
        .pipe(Effect.catchTag("AppendConflict", (conflict) => Effect.die(conflict)))
    })

/** The recorder of one subject family, named by `subjectOf`: `record(...ids)(fact)`, as `forSubject` is for commands. */
export const factsOf =
  <Ids extends ReadonlyArray<string>, A>(record: BoundFactRecorder<A>, subjectOf: (...ids: Ids) => string) =>
  (...ids: Ids) =>
  (fact: A) =>
    record(subjectOf(...ids), fact)
