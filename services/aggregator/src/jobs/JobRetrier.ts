// The automatic retries: a reactor that queues a job whose failure was retryable again, after a backoff, in a free slot.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Config, Effect, Layer, Option } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { decodeJobEventJson, JobEvent } from "@mds/shared/domain/job/JobEvent"
import { type AutoRetrySettings, mayAwaitRetry, type RetryTrigger } from "@mds/shared/domain/job/JobRetries"
import { endsJob } from "@mds/shared/domain/job/JobState"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JOBS_STREAM, jobSubject } from "@mds/shared/eventstore/Subjects"
import { JobStates } from "@mds/shared/jobs/JobStates"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { runReactor, type WakeSource } from "../reactors/Reactor.ts"
import { type JobKey, makeRetryRound } from "./RetryRound.ts"

export const JOB_RETRIES_DURABLE = "aggregator-job-retries"

export const JobRetrierConfig = Config.all({
  maxRetries: Config.Int("JOB_AUTO_RETRIES").pipe(Config.withDefault(2)),
  backoffMs: secondsAsMs("JOB_RETRY_BACKOFF_SECONDS", 10),
  /** How often the jobs whose last event is a failure are looked at again, for what a lost wake-up hid. */
  reconcileMs: secondsAsMs("JOB_RETRY_RECONCILE_INTERVAL_SECONDS", 300)
})

/** `mds.job.<projectId>.<jobId>` */
const keyOfSubject = (subject: string): JobKey => {
  const [, , projectId = "", jobId = ""] = subject.split(".")
  return { projectId, jobId }
}

/**
 * A reactor (`reactors/Reactor.ts`): a durable consumer of the job events that end a job, the pure `react` from the
 * job's one state (`JobRetries.ts`), commands with ids fixed by the job and its retry number, and a reconcile at start
 * and on a timer over the jobs whose last event is a failure or an automatic retry.
 */
const makeJobRetrier = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const store = yield* EventStore
  const { maxRetries, backoffMs, reconcileMs } = yield* JobRetrierConfig
  const settings: AutoRetrySettings = { maxRetries, backoffMs }
  const round = yield* makeRetryRound(settings)

  const jobEnds: WakeSource<JobKey, RetryTrigger["_tag"]> = {
    stream: JOBS_STREAM.name,
    durable: JOB_RETRIES_DURABLE,
    filterSubject: JOBS_STREAM.subjects[0] ?? "mds.job.>",
    lanes: 4,
    ackWaitMs: 30_000,
    // Failures from before this consumer existed are the start's reconcile's (those still within their lifetime).
    deliverPolicy: DeliverPolicy.New,
    wakes: (msg) => {
      const event = decodeJobEventJson(msg.string())
      return Effect.succeed(
        Option.isNone(event) || !endsJob(event.value) ? [] : [{ key: keyOfSubject(msg.subject), trigger: "JobEnded" as const }]
      )
    }
  }

  /** Jobs whose last event is a failure or an automatic retry: what a lost wake-up may have left undone. */
  const candidates = Effect.gen(function* () {
    const info = yield* Effect.tryPromise(() => jsm.streams.info(JOBS_STREAM.name, { subjects_filter: "mds.job.>" }))
    const subjects = Object.keys(info.state.subjects ?? {})
    const lasts = yield* Effect.forEach(
      subjects,
      (subject) => Effect.map(store.readLast(JobEvent, subject), (last) => [subject, last] as const),
      {
        concurrency: 8
      }
    )
    return lasts.flatMap(([subject, last]) => (Option.isSome(last) && mayAwaitRetry(last.value.event) ? [keyOfSubject(subject)] : []))
  })

  // A job whose retry must still wait is left to its message's redelivery, or to the next reconcile.
  yield* runReactor({
    name: "job retries",
    keyOf: ({ projectId, jobId }: JobKey) => jobSubject(projectId, jobId),
    round,
    wakeSources: [jobEnds],
    reconcile: { everyMs: reconcileMs, candidates, trigger: "Reconcile" }
  })
  yield* Effect.logInfo("automatic job retries consuming", { maxRetries, backoffMs, reconcileMs })
})

export const JobRetrier = Layer.effectDiscard(makeJobRetrier).pipe(Layer.provide(Layer.mergeAll(JobStates.layer, ProjectQuotaReader.layer)))
