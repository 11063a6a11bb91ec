// A job's current state, asked for (Emmett's aggregateStream): the read-model document as snapshot plus the job's
// events after it, folded with the job's one evolve. Every reader and reactor that must know "is this job running,
// ended, canceled, on which attempt" asks here instead of keeping its own fold.
import { Context, Effect, Layer, Option } from "effect"
import { JobEvent } from "../../domain/job/JobEvent.ts"
import { type JobState, evolveJobView } from "../../domain/job/JobState.ts"
import type { JobView } from "../../domain/job/JobView.ts"
import { EventStore, type EventStoreError } from "../../eventstore/EventStore.ts"
import { jobSubject } from "../../nats/Subjects.ts"
import { JobReadModel } from "../../readmodel/JobReadModel.ts"
import type { ReadModelError } from "../../readmodel/ReadModelError.ts"

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

/** The job's state right after one of its events, and that event's stream sequence. */
export interface JobStep {
  readonly state: JobState
  readonly seq: number
}

/**
 * The job's state after each of its events up to `uptoSeq` (every event unless given), oldest first, read from its
 * subject: the job as of any sequence N is the last step at or before N, and the step before it is the job right
 * before that event (what a reaction to one event, a webhook of the job's end, asks).
 */
export const jobHistory = (
  projectId: string,
  jobId: string,
  uptoSeq?: number
): Effect.Effect<ReadonlyArray<JobStep>, EventStoreError, EventStore> =>
  Effect.map(
    EventStore.use((store) => store.readSubject(JobEvent, jobSubject(projectId, jobId), 0, uptoSeq)),
    (events) => {
      const steps: Array<JobStep> = []
      for (const stored of events) steps.push({ state: foldJobEvents(steps.at(-1)?.state ?? null, [stored]), seq: stored.seq })
      return steps
    }
  )

export const noJobYet: CurrentJob = { state: null, lastSeq: 0 }

type Current = (projectId: string, jobId: string, known?: CurrentJob) => Effect.Effect<CurrentJob, ReadModelError | EventStoreError>

/** The door over a snapshot source: a known state (given, or the read model's document) plus the events after it. */
const makeCurrent = (
  store: EventStore["Service"],
  snapshotOf: (projectId: string, jobId: string) => Effect.Effect<JobView | null, ReadModelError>
): Current =>
  Effect.fn("JobStates.current")(function* (projectId: string, jobId: string, known?: CurrentJob) {
    const snapshot = known === undefined ? yield* snapshotOf(projectId, jobId) : known.state
    const after = known?.lastSeq ?? snapshot?.lastSeq ?? 0
    const events = yield* store
      .readSubject(JobEvent, jobSubject(projectId, jobId), after)
      .pipe(snapshot === null ? (self) => self : Effect.orElseSucceed(() => []))
    return { state: foldJobEvents(snapshot, events), lastSeq: events.at(-1)?.seq ?? after } satisfies CurrentJob
  })

export class JobStates extends Context.Service<
  JobStates,
  {
    /**
     * The job's state as of its latest stored event: from `known` (a state read before, e.g. by a watch reading every
     * second) or the read model's document, and the events after it. With a state in hand, an unreadable newer event
     * only costs freshness (the projection steps over it too); without one the read's failure is the answer's.
     */
    current: Current
  }
>()("mds/application/job/JobStates") {
  static readonly layer = Layer.effect(
    JobStates,
    Effect.gen(function* () {
      const store = yield* EventStore
      const readModel = yield* JobReadModel
      return JobStates.of({
        current: makeCurrent(store, (projectId, jobId) => Effect.map(readModel.get(projectId, jobId), Option.getOrNull))
      })
    })
  )

  /** For a process that holds no read model (the extractor): every first read folds the job's events from the start. */
  static readonly fromEvents = Layer.effect(
    JobStates,
    Effect.map(Effect.service(EventStore), (store) => JobStates.of({ current: makeCurrent(store, () => Effect.succeed(null)) }))
  )
}
