// The instances of a subject kind a stream holds now, read back as their ids: what a reconcile looks over.
import { Effect, Option } from "effect"
import { NatsClient } from "./NatsClient.ts"
import type { SubjectIds, SubjectKind } from "./SubjectKind.ts"
import { streamOf } from "./Subjects.ts"

/**
 * The ids of every subject of `kind` with a message in its stream, under `filter` (every one of the kind unless given,
 * e.g. `kind.within(projectId)`). A subject that does not parse is left out (the rule in SubjectKind.ts).
 */
export const listSubjects = <Parts extends ReadonlyArray<string>>(
  kind: SubjectKind<Parts>,
  filter: string = kind.all
): Effect.Effect<ReadonlyArray<SubjectIds<Parts>>, unknown, NatsClient> =>
  Effect.gen(function* () {
    const { jsm } = yield* NatsClient
    const info = yield* Effect.tryPromise(() => jsm.streams.info(streamOf(filter).name, { subjects_filter: filter }))
    return Object.keys(info.state.subjects ?? {}).flatMap((subject) => Option.toArray(kind.parse(subject)))
  })
