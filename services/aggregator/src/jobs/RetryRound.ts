// The automatic retries' round: the job's one state, `react`, and its reaction carried out (the backoff waited out as a
// redelivery, the retry in a free slot within the quotas, the job handed off again).
import { Clock, Effect } from "effect"
import type { ProjectQuotaReader } from "@mds/shared/application/account/ProjectQuotaReader"
import { handOffAgain } from "@mds/shared/application/job/HandOff"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { retryJob } from "@mds/shared/application/job/RetryJob"
import type { Lifetimes } from "@mds/shared/config/Lifetimes"
import { type AutoRetrySettings, type RetryTrigger, retryReaction } from "@mds/shared/domain/job/JobRetries"
import type { EventStore } from "@mds/shared/eventstore/EventStore"
import { Done, later } from "../reactors/Reactor.ts"

/** The project's slots are all held: look again a little later (a slot frees when one of its jobs ends). */
const FULL_RETRY_MS = 5_000

export interface JobKey {
  readonly projectId: string
  readonly jobId: string
}

/**
 * Retries the job (RetryJob.ts: a slot within the project's quotas, JobRetried, the hand-off); false when the project's
 * slots are all held. A retry over a used-up quota is not made (the job stays failed): it would wait for the quota's
 * reset. A job that changed meanwhile (a client retried it, it expired) is left as it is.
 */
const retry = (projectId: string, jobId: string, number: number) =>
  retryJob(projectId, jobId, "automatic", number).pipe(
    Effect.tap((retried) => Effect.logInfo("job retried automatically", { jobId, retry: number, attempt: retried.state.attempt })),
    Effect.as(true),
    Effect.catchTags({
      ConcurrencyLimitExceeded: () => Effect.succeed(false),
      QuotaExceeded: () =>
        Effect.logInfo("job not retried: a quota of the project is used up", { jobId, retry: number }).pipe(Effect.as(true)),
      JobNotRetryable: () => Effect.succeed(true),
      JobNotFound: () => Effect.succeed(true)
    })
  )

/** The round of one job, over the services it is made with. */
export const makeRetryRound = (settings: AutoRetrySettings) =>
  Effect.gen(function* () {
    const services = yield* Effect.context<EventStore | JobStates | Lifetimes | ProjectQuotaReader>()
    const react = retryReaction(settings)

    return Effect.fn("JobRetrier.round")(function* ({ projectId, jobId }: JobKey, trigger: RetryTrigger["_tag"]) {
      const now = yield* Clock.currentTimeMillis
      const { state } = yield* (yield* JobStates).current(projectId, jobId)
      for (const reaction of react(state, { _tag: trigger, now })) {
        switch (reaction._tag) {
          case "WaitUntil":
            // The backoff is waited out as the woken message's redelivery delay: nothing is kept in memory.
            return later(reaction.at - now, "backoff")
          case "Retry":
            if (!(yield* retry(projectId, jobId, reaction.retry))) return later(FULL_RETRY_MS, "project's slots all held")
            break
          case "HandOff":
            if (state !== null && (yield* handOffAgain(state)))
              yield* Effect.logInfo("job handed off again", { jobId, retry: reaction.retry })
            break
        }
      }
      return Done
    }, Effect.provide(services))
  })
