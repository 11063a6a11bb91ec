// Tells a running download that its job was canceled, or (extension) its live recording asked to stop: it reads the job's state from its stream every second, and at
// once when a message on the job's subject says the stream moved.
import { Context, Deferred, Effect, Layer, Queue, type Scope } from "effect"
import { hasEnded, jobStatus } from "@mds/shared/domain/job/JobState"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { JobStates, noJobYet } from "@mds/shared/application/job/JobStates"

/**
 * How often the job's state is read. The message on the subject is only a shortcut: it is lost while the connection
 * is down or moving to another node, and a read right after it may reach a replica that has not stored the cancel
 * yet. The next read (at most this much later) is what makes the cancel certain to be seen.
 */
export const CANCEL_POLL_MS = 1_000

export interface CancelSignal {
  /** Completes when the job is canceled. */
  readonly wait: Effect.Effect<void>
  /** Extension: completes when a client asked the job's live recording to stop (JobStopRequested). */
  readonly stopRequested: Effect.Effect<void>
}

export class JobCancelWatch extends Context.Service<
  JobCancelWatch,
  {
    /**
     * Starts watching the job at once (call it before StartJob, so that no cancel falls between the two); the watch
     * ends with the scope.
     */
    watch(projectId: string, jobId: string): Effect.Effect<CancelSignal, never, Scope.Scope>
  }
>()("mds/extractor/JobCancelWatch") {
  static readonly layer = Layer.effect(
    JobCancelWatch,
    Effect.gen(function* () {
      const { connection } = yield* NatsClient
      const jobs = yield* JobStates

      const watch = (projectId: string, jobId: string) =>
        Effect.gen(function* () {
          const canceled = yield* Deferred.make<void>()
          const stopRequested = yield* Deferred.make<void>()
          // Any message on the subject (even an append the stream refused) only asks for a read now.
          const moved = yield* Queue.sliding<void>(1)
          yield* Effect.acquireRelease(
            Effect.sync(() =>
              connection.subscribe(jobSubject(projectId, jobId), {
                callback: (error) => {
                  if (error === null) Queue.offerUnsafe(moved, undefined)
                }
              })
            ),
            (subscription) => Effect.sync(() => subscription.unsubscribe())
          )
          let known = noJobYet
          const readOnce = Effect.suspend(() => jobs.current(projectId, jobId, known)).pipe(
            Effect.tap((current) => Effect.sync(() => (known = current))),
            Effect.catchCause((cause) => Effect.logDebug("reading the job's state failed; read again shortly", cause))
          )
          const nextRead = Effect.raceFirst(Queue.take(moved), Effect.sleep(CANCEL_POLL_MS))
          yield* Effect.gen(function* () {
            // A terminal state never changes again: a job that ended otherwise needs no more reads.
            while (!hasEnded(known.state)) {
              yield* readOnce
              if (known.state?.recording?.stopRequestedAt != null) yield* Deferred.succeed(stopRequested, undefined)
              if (!hasEnded(known.state)) yield* nextRead
            }
            if (jobStatus(known.state) === "canceled") yield* Deferred.succeed(canceled, undefined)
          }).pipe(Effect.forkScoped)
          return { wait: Deferred.await(canceled), stopRequested: Deferred.await(stopRequested) } satisfies CancelSignal
        })

      return JobCancelWatch.of({ watch })
    })
    // The extractor holds no read model: a job's state is folded from its events.
  ).pipe(Layer.provide(JobStates.fromEvents))
}
