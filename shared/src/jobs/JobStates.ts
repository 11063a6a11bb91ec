// A job's current state, asked for (Emmett's aggregateStream): the read-model document as snapshot plus the job's
// events after it, folded with the job's one evolve. Every reader and reactor that must know "is this job running,
// ended, canceled, on which attempt" asks here instead of keeping its own fold.
import { Context, Effect, Layer, Option } from "effect"
import { JobEvent } from "../domain/job/JobEvent.ts"
import type { JobState } from "../domain/job/JobState.ts"
import { evolveJobView, type JobView } from "../domain/job/JobView.ts"
import { EventStore, type EventStoreError } from "../eventstore/EventStore.ts"
import { jobSubject } from "../eventstore/Subjects.ts"
import { JobReadModel } from "../readmodel/JobReadModel.ts"
import type { ReadModelError } from "../readmodel/ReadModelError.ts"

export interface CurrentJob {
  readonly state: JobState
  /** Stream sequence of the job's last event folded in (0: none); a command can decide from it without reading again. */
  readonly lastSeq: number
}

/** Folds stored events onto a known state (a snapshot, or null): the one way a reader moves a job's state forward. */
export const foldJobEvents = (
  from: JobView | null,
  events: Iterable<{ readonly event: JobEvent; readonly seq: number }>
): JobView | null => {
  let state = from
  for (const stored of events) state = evolveJobView(state, stored.event, stored.seq)
  return state
}

export class JobStates extends Context.Service<
  JobStates,
  {
    /**
     * The job's state as of its latest stored event. With a document in hand, an unreadable newer event only costs
     * freshness (the projection steps over it too); without one the read's failure is the answer's.
     */
    current(projectId: string, jobId: string): Effect.Effect<CurrentJob, ReadModelError | EventStoreError>
  }
>()("mds/jobs/JobStates") {
  static readonly layer = Layer.effect(
    JobStates,
    Effect.gen(function* () {
      const store = yield* EventStore
      const readModel = yield* JobReadModel
      const current = Effect.fn("JobStates.current")(function* (projectId: string, jobId: string) {
        const snapshot = Option.getOrNull(yield* readModel.get(projectId, jobId))
        const events = yield* store
          .readSubject(JobEvent, jobSubject(projectId, jobId), snapshot?.lastSeq ?? 0)
          .pipe(snapshot === null ? (self) => self : Effect.orElseSucceed(() => []))
        const state = foldJobEvents(snapshot, events)
        return { state, lastSeq: events.at(-1)?.seq ?? snapshot?.lastSeq ?? 0 } satisfies CurrentJob
      })
      return JobStates.of({ current })
    })
  )
}
