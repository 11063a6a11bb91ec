// The automatic retries: a reactor that queues a job whose failure was retryable again, after a backoff, in a free slot.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Clock, Config, Effect, Layer, Option } from "effect"
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
import { JOBS_STREAM, jobSubject } from "@mds/shared/eventstore/Subjects"
import { JobStates } from "@mds/shared/jobs/JobStates"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"
import { bytesLeft } from "@mds/shared/domain/admission/Quota"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Done, later, runReactor, type WakeSource } from "../reactors/Reactor.ts"

export const JOB_RETRIES_DURABLE = "aggregator-job-retries"

export const JobRetrierConfig = Config.all({
  maxRetries: Config.Int("JOB_AUTO_RETRIES").pipe(Config.withDefault(2)),
  backoffMs: secondsAsMs("JOB_RETRY_BACKOFF_SECONDS", 10),
  /** How often the jobs whose last event is a failure are looked at again, for what a lost wake-up hid. */
  reconcileMs: secondsAsMs("JOB_RETRY_RECONCILE_INTERVAL_SECONDS", 300)
})

/** The project's slots are all held: look again a little later (a slot frees when one of its jobs ends). */
const FULL_RETRY_MS = 5_000

interface JobKey {
  readonly projectId: string
  readonly jobId: string
}

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

  const round = Effect.fn("JobRetrier.round")(function* ({ projectId, jobId }: JobKey, trigger: RetryTrigger["_tag"]) {
    const now = yield* Clock.currentTimeMillis
    const { state } = yield* jobStates.current(projectId, jobId)
    for (const reaction of react(state, settings, { _tag: trigger, now })) {
      switch (reaction._tag) {
        case "WaitUntil":
          // The backoff is waited out as the woken message's redelivery delay: nothing is kept in memory.
          return later(reaction.at - now, "backoff")
        case "Retry":
          if (!(yield* retry(projectId, jobId, reaction.retry, now))) return later(FULL_RETRY_MS, "project's slots all held")
          break
        case "HandOff":
          if (state !== null) yield* sendDownloadWork(queuedJobOf(state), reaction.retry)
          break
      }
    }
    return Done
  }, provideStore)

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
    return lasts.flatMap(([subject, last]) =>
      Option.isSome(last) && (last.value.event._tag === "JobFailed" || last.value.event._tag === "JobRetried")
        ? [keyOfSubject(subject)]
        : []
    )
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
