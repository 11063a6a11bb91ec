// A download whose client got an error (and so no job id): its job failed and its slot freed, in the background.
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import { Clock, Effect, Schedule } from "effect"
import { releaseAdmittedSlot } from "./admitJob.ts"

/** Retried while NATS cannot take the write (a failover takes a few seconds); a rejection by the decider is final. */
const untilStored = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.retry({ while: (error) => error._tag === "EventStoreError", schedule: Schedule.spaced("1 second"), times: 60 }),
    Effect.ignore
  )

/**
 * The client gets an error and never learns the job id: fail the job (if JobQueued made it) and free its slot (if
 * the claim made it: a claim that timed out may still have been stored), so that neither waits for the end of the
 * job's lifetime. In the background, retried for a minute: the error that got us here (NATS failing over) usually
 * refuses these writes too for a few seconds.
 */
export const giveUpJob = (projectId: string, jobId: string, queued: boolean) =>
  Effect.forkDetach(
    Effect.gen(function* () {
      const now = yield* Clock.currentTimeMillis
      if (queued) {
        yield* untilStored(
          jobCommands(
            projectId,
            jobId
          )({
            _tag: "FailJob",
            jobId,
            error: { code: "internal_error", message: "The job could not be handed to a worker.", retryable: true },
            now
          })
        )
      }
      yield* untilStored(releaseAdmittedSlot(projectId, jobId, "failed"))
    })
  )
