// How a reactor that follows jobs is woken: a durable consumer of the job events its domain question picks, and the
// reconcile's candidates, the jobs whose latest event it picks. One place for what the retries, the deliveries and the
// live wait each wrote out.
import type { DeliverPolicy } from "@nats-io/jetstream"
import { Effect, Option } from "effect"
import { decodeJobEventJson, JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { listSubjects } from "@mds/shared/nats/SubjectListing"
import type { WakeSource } from "./Reactor.ts"

/** A job, as its subject names it, and the sequence of the event that woke it (none from a reconcile). */
export interface JobKey {
  readonly projectId: string
  readonly jobId: string
  readonly seq?: number
}

export interface JobEventWakeOptions<T> {
  /** The reactor's name, for the logs of a subject that does not parse. */
  readonly name: string
  readonly durable: string
  readonly ackWaitMs: number
  /** New: what came before the consumer is the reconcile's; All: every retained event, once, when it is first made. */
  readonly deliverPolicy: DeliverPolicy
  /** The domain's question: after this event, may the reactor have something to do for its job? */
  readonly wakesOn: (event: JobEvent) => boolean
  readonly trigger: T
}

/** The consumer of every job's events that wakes the job an event is about, when `wakesOn` says so. */
export const jobEventWakes = <T>(options: JobEventWakeOptions<T>): WakeSource<JobKey, T> => ({
  stream: JOBS_STREAM.name,
  durable: options.durable,
  filterSubject: jobSubject.all,
  lanes: 4,
  ackWaitMs: options.ackWaitMs,
  deliverPolicy: options.deliverPolicy,
  wakes: (msg) => {
    const event = decodeJobEventJson(msg.string())
    if (Option.isNone(event) || !options.wakesOn(event.value)) return Effect.succeed([])
    const key = jobSubject.parse(msg.subject)
    if (Option.isNone(key)) return Effect.as(stepOverSubject(options.name, msg.subject), [])
    return Effect.succeed([{ key: { ...key.value, seq: msg.seq }, trigger: options.trigger }])
  }
})

/** The jobs whose latest event `wakesOn` picks: what a lost wake-up (or a reactor that died) may have left undone. */
export const jobsWhoseLatestEvent = (wakesOn: (event: JobEvent) => boolean) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const jobs = yield* listSubjects(jobSubject)
    const lasts = yield* Effect.forEach(
      jobs,
      (job) => Effect.map(store.readLast(JobEvent, jobSubject(job.projectId, job.jobId)), (last) => [job, last] as const),
      { concurrency: 8 }
    )
    return lasts.flatMap(([job, last]): ReadonlyArray<JobKey> => (Option.isSome(last) && wakesOn(last.value.event) ? [job] : []))
  })
