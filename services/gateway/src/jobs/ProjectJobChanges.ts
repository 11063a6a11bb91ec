// The changes of a project's jobs as they happen (status, whole-percent progress): what the project-wide live streams
// (GET /v1/jobs/events, the dashboard's Jobs tab) send, each with its own filter.
import { sameRecording } from "@mds/shared/domain/job/JobRecording"
import { decodeJobEventJson, type JobEvent } from "@mds/shared/domain/job/JobEvent"
import { hasEnded, jobStatus } from "@mds/shared/domain/job/JobState"
import { isJobVisible, type JobView } from "@mds/shared/domain/job/JobView"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { foldJobEvents, JobStates } from "@mds/shared/application/job/JobStates"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { followDecoded } from "@mds/shared/nats/StreamFollower"
import { Clock, Effect, Option, Queue } from "effect"
import { LRUCache } from "lru-cache"
import { ServiceUnavailable } from "../http/GatewayErrors.ts"

/** Jobs remembered per stream (their state, and what the client was last sent): a forgotten one is simply read again. */
const REMEMBERED_JOBS = 1_000
/** Events read ahead of the stream's writes. */
const FOLLOWED_EVENTS = 64

export interface JobChange {
  readonly view: JobView
  /** Whether the job passes the stream's filter now (and is visible); false: it left the filter with this change. */
  readonly matches: boolean
  /**
   * The stream sequence of the event that made the change (of a held job read afresh: its last event's): resuming
   * after it misses no later change.
   */
  readonly seq: number
}

/** The job stream's last sequence: a stream that starts after it sees every change made from now on. */
export const jobStreamTip = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const info = yield* Effect.tryPromise({
    try: () => jsm.streams.info(JOBS_STREAM.name),
    catch: () => new ServiceUnavailable({ message: "Job changes cannot be followed right now; retry shortly." })
  })
  return info.state.last_seq
})

/** What a client sees of a job change: its status, whole percent and recording (the per-job stream's rule too). */
const sameToClient = (a: JobView, b: JobView) =>
  jobStatus(a) === jobStatus(b) && Math.round(a.progress) === Math.round(b.progress) && sameRecording(a, b)

/** A job event to fold in, or (event null) a job the client holds whose state is to be read afresh. */
interface Pending {
  readonly jobId: string
  readonly event: JobEvent | null
  readonly seq: number
}

/**
 * Follows the project's job events after `afterSeq` and gives, one `next` at a time, each change a client of the
 * filter must see: a job that passes it and changed, or one it was sent that no longer passes (once). `shown` are the
 * jobs the client already holds (a list it was just sent, from the read model): those not ended are read afresh first,
 * since the read model may not hold their last events up to `afterSeq` yet. Why each state is exact: a job's first
 * event here reads its state (read model plus its events, JobStates), which holds every event up to that one; the
 * follower delivers every later event of the job in order, folded onto it with the job's one evolve (an event already
 * in it changes nothing).
 */
export const followProjectJobChanges = Effect.fn("followProjectJobChanges")(function* (
  projectId: string,
  options: {
    readonly afterSeq: number
    readonly matches: (view: JobView) => boolean
    readonly shown?: ReadonlyArray<JobView>
  }
) {
  const jobStates = yield* JobStates
  // Bounded: the follower waits while the stream's writer is behind (a client that reads slowly), pulling no more.
  const queue = yield* Queue.bounded<Pending>(FOLLOWED_EVENTS)
  yield* Effect.addFinalizer(() => Queue.shutdown(queue))
  /** Jobs' states as of the last event handled; ended jobs are dropped (a retry reads the job again). */
  const states = new LRUCache<string, JobView>({ max: REMEMBERED_JOBS })
  /** What the client holds of each job it was sent while it passed the filter. */
  const shown = new LRUCache<string, JobView>({ max: REMEMBERED_JOBS })
  /** The shown jobs not ended, read afresh before any followed event. */
  const afresh: Array<Pending> = []
  for (const view of options.shown ?? []) {
    shown.set(view.id, view)
    if (!hasEnded(view)) afresh.push({ jobId: view.id, event: null, seq: 0 })
  }
  yield* followDecoded({
    name: `project_job_events:${projectId}`,
    stream: JOBS_STREAM.name,
    filterSubject: jobSubject.within(projectId),
    from: { afterSeq: options.afterSeq },
    logStateChanges: false,
    decode: decodeJobEventJson,
    onEvent: (event, message) => {
      // A subject that is not a job's is skipped, as an undecodable message is (the rule in SubjectKind.ts).
      const ids = jobSubject.parse(message.subject)
      // The follower waits while the queue is full (the stream's writer behind a client that reads slowly).
      return Option.isSome(ids)
        ? Effect.runPromise(Effect.asVoid(Queue.offer(queue, { jobId: ids.value.jobId, event, seq: message.seq })))
        : undefined
    }
  })

  const stateAfter = (pending: Pending) =>
    Effect.gen(function* () {
      const known = states.get(pending.jobId)
      if (known !== undefined && pending.event !== null) {
        return pending.seq <= known.lastSeq ? undefined : (foldJobEvents(known, [{ event: pending.event, seq: pending.seq }]) ?? undefined)
      }
      return (yield* jobStates.current(projectId, pending.jobId)).state ?? undefined
    })

  const next = Effect.gen(function* () {
    while (true) {
      const pending = afresh.shift() ?? (yield* Queue.take(queue))
      const view = yield* stateAfter(pending)
      if (view === undefined) continue
      if (hasEnded(view)) states.delete(pending.jobId)
      else states.set(pending.jobId, view)
      const matches = isJobVisible(view, yield* Clock.currentTimeMillis) && options.matches(view)
      const before = shown.get(pending.jobId)
      if (matches) {
        if (before !== undefined && sameToClient(before, view)) continue
        shown.set(pending.jobId, view)
      } else {
        if (before === undefined) continue
        shown.delete(pending.jobId)
      }
      return { view, matches, seq: pending.event === null ? view.lastSeq : pending.seq } satisfies JobChange
    }
  })
  return { next }
})
