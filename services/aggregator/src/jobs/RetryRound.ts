// The automatic retries' round: the job's one state, `react`, and its reaction carried out (the backoff waited out as a
// redelivery, the retry in a free slot within the quotas, the job handed off again).
import { Clock, Effect } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { claimSlot, releaseSlot } from "@mds/shared/domain/admission/AdmissionCommands"
import { bytesLeft } from "@mds/shared/domain/admission/Quota"
import { queuedJobOf, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { type AutoRetrySettings, type RetryTrigger, react } from "@mds/shared/domain/job/JobRetries"
import { slotReleaseOf } from "@mds/shared/domain/job/JobSlot"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JobStates } from "@mds/shared/jobs/JobStates"
import { ProjectQuotaReader } from "@mds/shared/quota/ProjectQuotaReader"
import { Done, later } from "../reactors/Reactor.ts"

/** The project's slots are all held: look again a little later (a slot frees when one of its jobs ends). */
const FULL_RETRY_MS = 5_000

export interface JobKey {
  readonly projectId: string
  readonly jobId: string
}

/** The round of one job, over the services it is made with. */
export const makeRetryRound = (settings: AutoRetrySettings) =>
  Effect.gen(function* () {
    const store = yield* EventStore
    const jobStates = yield* JobStates
    const lifetimes = yield* Lifetimes
    const quotas = yield* ProjectQuotaReader
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

    return Effect.fn("JobRetrier.round")(function* ({ projectId, jobId }: JobKey, trigger: RetryTrigger["_tag"]) {
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
  })
