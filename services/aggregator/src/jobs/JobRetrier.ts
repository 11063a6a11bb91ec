// The automatic retries: a reactor that queues a job whose failure was retryable again, after a backoff, in a free slot.
import type { JsMsg } from "@nats-io/jetstream"
import { DeliverPolicy } from "@nats-io/jetstream"
import { Clock, Config, Effect, Layer, Option, Schedule } from "effect"
import { secondsAsMs } from "@mds/shared/config/Seconds"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { claimSlot, releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { queuedJobOf, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { decodeJobEventJson, JobEvent } from "@mds/shared/domain/job/JobEvent"
import { type AutoRetrySettings, type RetryTrigger, react } from "@mds/shared/domain/job/JobRetries"
import { slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { endsJob } from "@mds/shared/domain/job/JobState"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JOBS_STREAM } from "@mds/shared/eventstore/Subjects"
import { JobStates } from "@mds/shared/jobs/JobStates"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"
import { bytesLeft } from "@mds/shared/domain/admission/Quota"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer, type Verdict } from "../consumers/DurableConsumer.ts"

export const JOB_RETRIES_DURABLE = "aggregator-job-retries"

export const JobRetrierConfig = Config.all({
  maxRetries: Config.Int("JOB_AUTO_RETRIES").pipe(Config.withDefault(2)),
  backoffMs: secondsAsMs("JOB_RETRY_BACKOFF_SECONDS", 10),
  /** How often the jobs whose last event is a failure are looked at again, for what a lost wake-up hid. */
  reconcileMs: secondsAsMs("JOB_RETRY_RECONCILE_INTERVAL_SECONDS", 300)
})

const ack: Verdict = { _tag: "Ack" }
/** The project's slots are all held: look again a little later (a slot frees when one of its jobs ends). */
const FULL_RETRY_MS = 5_000
const retryLater = (cause: unknown): Verdict => ({ _tag: "Nak", delayMs: 1_000, reason: String(cause) })

/** `mds.job.<projectId>.<jobId>` */
const idsOf = (subject: string) => {
  const [, , projectId = "", jobId = ""] = subject.split(".")
  return { projectId, jobId }
}

/** What became of one wake-up: done, or to be looked at again in `delayMs` (a backoff to wait out, a full project). */
type Outcome = { readonly _tag: "Done" } | { readonly _tag: "Later"; readonly delayMs: number; readonly reason: string }
const done: Outcome = { _tag: "Done" }

/**
 * A reactor (rita's reactors, the batch feeder's shape): a durable consumer of the job events that end a job, the pure
 * `react` from the job's one state, commands with ids fixed by the job and its retry number, and a reconcile at start
 * and on a timer. A retry waits out its backoff as the woken message's redelivery delay, so nothing is kept in memory.
 */
const makeJobRetrier = Effect.gen(function* () {
  const { jsm } = yield* NatsClient
  const store = yield* EventStore
  const jobStates = yield* JobStates
  const lifetimes = yield* Lifetimes
  const quotas = yield* ProjectQuotaReader
  const { maxRetries, backoffMs, reconcileMs } = yield* JobRetrierConfig
  const settings: AutoRetrySettings = { maxRetries, backoffMs }
  const provideStore = Effect.provideService(EventStore, store)

  /**
   * Claims a slot within the project's quotas, records the retry, hands the job off; false when the project's slots are
   * all held. A retry over a used-up quota is not made (the job stays failed): it would wait for the quota's reset.
   */
  const retry = Effect.fn("JobRetrier.retry")(function* (projectId: string, jobId: string, number: number, now: number) {
    const limit = lifetimes.maxConcurrentJobs
    const quota = yield* quotas.limitsOf(projectId)
    const claimed = yield* claimSlot({ projectId, jobId, limit, quota, now, expiresAt: now + lifetimes.jobMs }).pipe(
      Effect.map((done): { readonly quotaBytesLeft: number | null } | "full" | "over quota" => ({
        quotaBytesLeft: bytesLeft(quota, done.state.usage, now)
      })),
      Effect.catchTags({
        ConcurrencyLimitExceeded: () => Effect.succeed("full" as const),
        QuotaExceeded: () => Effect.succeed("over quota" as const)
      })
    )
    if (claimed === "full") return false
    if (claimed === "over quota") {
      yield* Effect.logInfo("job not retried: a quota of the project is used up", { jobId, retry: number })
      return true
    }
    const retried = yield* jobCommands(
      projectId,
      jobId
    )({ _tag: "RetryJob", jobId, by: "automatic", retry: number, now }).pipe(
      Effect.map((handled) => handled.state),
      Effect.catchTags({ JobNotRetryable: () => Effect.succeed(null), JobNotFound: () => Effect.succeed(null) })
    )
    if (retried === null) {
      // The job changed meanwhile (a client retried or it expired): keep the slot only if its job still needs it.
      const { state } = yield* jobStates.current(projectId, jobId)
      const reason = slotReleaseOf(state)
      if (reason !== null) yield* releaseSlot(projectId, jobId, reason)
      return true
    }
    yield* sendDownloadWork(queuedJobOf(retried), number, claimed.quotaBytesLeft)
    yield* Effect.logInfo("job retried automatically", { jobId, retry: number, attempt: retried.attempt })
    return true
  })

  const round = Effect.fn("JobRetrier.round")(function* (projectId: string, jobId: string, trigger: RetryTrigger["_tag"]) {
    const now = yield* Clock.currentTimeMillis
    const { state } = yield* jobStates.current(projectId, jobId)
    for (const reaction of react(state, settings, { _tag: trigger, now })) {
      switch (reaction._tag) {
        case "WaitUntil":
          return { _tag: "Later", delayMs: reaction.at - now, reason: "backoff" } satisfies Outcome
        case "Retry":
          if (!(yield* retry(projectId, jobId, reaction.retry, now))) {
            return { _tag: "Later", delayMs: FULL_RETRY_MS, reason: "project's slots all held" } satisfies Outcome
          }
          break
        case "HandOff":
          if (state !== null) yield* sendDownloadWork(queuedJobOf(state), reaction.retry)
          break
      }
    }
    return done
  }, provideStore)

  const onJobEvent = (msg: JsMsg): Effect.Effect<Verdict> => {
    const event = decodeJobEventJson(msg.string())
    if (Option.isNone(event) || !endsJob(event.value)) return Effect.succeed(ack)
    const { projectId, jobId } = idsOf(msg.subject)
    return round(projectId, jobId, "JobEnded").pipe(
      Effect.map((outcome): Verdict => (outcome._tag === "Done" ? ack : { _tag: "Nak", delayMs: outcome.delayMs, reason: outcome.reason })),
      Effect.catchCause((cause) => Effect.succeed(retryLater(cause)))
    )
  }

  const consumer: DurableConsumerOptions = {
    stream: JOBS_STREAM.name,
    durable: JOB_RETRIES_DURABLE,
    filterSubject: JOBS_STREAM.subjects[0] ?? "mds.job.>",
    lanes: 4,
    ackWaitMs: 30_000,
    // Failures from before this consumer existed are the start's reconcile's (those still within their lifetime).
    deliverPolicy: DeliverPolicy.New,
    handle: onJobEvent
  }
  yield* ensureDurableConsumer(consumer)
  yield* Effect.forkScoped(runDurableConsumer(consumer))

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
    return lasts.flatMap(([subject, last]) =>
      Option.isSome(last) && (last.value.event._tag === "JobFailed" || last.value.event._tag === "JobRetried") ? [subject] : []
    )
  })

  /** A job whose retry must still wait is left to its message's redelivery, or to the next reconcile. */
  const reconcile = Effect.flatMap(candidates, (subjects) =>
    Effect.forEach(
      subjects,
      (subject) => {
        const { projectId, jobId } = idsOf(subject)
        return round(projectId, jobId, "Reconcile").pipe(
          Effect.catchCause((cause) => Effect.logWarning("job retry reconcile failed for a job", { subject }, cause))
        )
      },
      { discard: true }
    )
  ).pipe(Effect.catchCause((cause) => Effect.logWarning("job retry reconcile failed; tried again next time", cause)))
  yield* reconcile.pipe(Effect.repeat(Schedule.spaced(reconcileMs)), Effect.forkScoped)
  yield* Effect.logInfo("automatic job retries consuming", { maxRetries, backoffMs, reconcileMs })
})

export const JobRetrier = Layer.effectDiscard(makeJobRetrier).pipe(Layer.provide(Layer.mergeAll(JobStates.layer, ProjectQuotaReader.layer)))
