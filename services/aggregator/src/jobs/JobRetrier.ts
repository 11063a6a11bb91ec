// The automatic retries: a reactor that queues a job whose failure was retryable again, after a backoff, in a free slot.
import { DeliverPolicy } from "@nats-io/jetstream"
import { Effect, Layer } from "effect"
import { type AutoRetrySettings, mayAwaitRetry, type RetryTrigger } from "@mds/shared/domain/job/JobRetries"
import { endsJob } from "@mds/shared/domain/job/JobState"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { jobEventWakes, jobsWhoseLatestEvent } from "../reactors/JobEventWakes.ts"
import { runReactor } from "../reactors/Reactor.ts"
import { AutoRetryConfig } from "./AutoRetryConfig.ts"
import { type JobKey, makeRetryRound } from "./RetryRound.ts"

export const JOB_RETRIES_DURABLE = "aggregator-job-retries"

/**
 * A reactor (`reactors/Reactor.ts`): a durable consumer of the job events that end a job, the pure `react` from the
 * job's one state (`JobRetries.ts`), commands with ids fixed by the job and its retry number, and a reconcile at start
 * and on a timer over the jobs whose last event is a failure or an automatic retry.
 */
const makeJobRetrier = Effect.gen(function* () {
  const { maxRetries, backoffMs, reconcileMs } = yield* AutoRetryConfig
  const settings: AutoRetrySettings = { maxRetries, backoffMs }
  const round = yield* makeRetryRound(settings)

  const jobEnds = jobEventWakes({
    name: "job retries",
    durable: JOB_RETRIES_DURABLE,
    ackWaitMs: 30_000,
    // Failures from before this consumer existed are the start's reconcile's (those still within their lifetime).
    deliverPolicy: DeliverPolicy.New,
    wakesOn: endsJob,
    trigger: "JobEnded" as RetryTrigger["_tag"]
  })
  // Jobs whose last event is a failure or an automatic retry.
  const candidates = jobsWhoseLatestEvent(mayAwaitRetry)

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
