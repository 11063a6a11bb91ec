// A job whose queueing failed half-way (its client got an error): its try failed and its slot freed, in the background.
import { Clock, Effect, Schedule } from "effect"
import { releaseAdmittedSlot } from "../admission/AdmitJob.ts"
import { jobCommands } from "./JobCommands.ts"
import { JobStates } from "./JobStates.ts"

/** Retried while NATS cannot take the write (a failover takes a few seconds); a rejection by the decider is final. */
const untilStored = <A, E extends { readonly _tag: string }, R>(effect: Effect.Effect<A, E, R>) =>
  effect.pipe(
    Effect.retry({ while: (error) => error._tag === "EventStoreError", schedule: Schedule.spaced("1 second"), times: 60 }),
    Effect.ignore
  )

/**
 * A write after the claim failed (the client of a new download then gets an error and never learns the job id), or
 * the job's slot could not be had again once it was recorded: fail the try `retry` (if its JobQueued or JobRetried
 * made it) and free its slot (if the claim made it: a claim that timed out may still have been stored), so that
 * neither waits for the end of the job's lifetime. In the background, retried for a minute: the error that got us here
 * (NATS failing over) usually refuses these writes too for a few seconds.
 */
export const giveUpJob = (projectId: string, jobId: string, queued: boolean, retry = 0) =>
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
      // A slot whose job was never recorded was claimed in vain: it is taken back from the day's count.
      const recorded =
        queued &&
        (yield* (yield* JobStates).current(projectId, jobId).pipe(
          Effect.map(({ state }) => state !== null),
          Effect.orElseSucceed(() => true)
        ))
      yield* untilStored(releaseAdmittedSlot(projectId, jobId, recorded ? "failed" : "unused", 0, { retry }))
    })
  )
