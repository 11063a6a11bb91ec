// Tells a running download that its job was canceled: a core NATS subscription on the job's subject, confirmed by the stream.
import { Context, Deferred, Effect, Layer, Schema, type Scope } from "effect"
import { JobDecider } from "@mds/shared/domain/job/JobDecider"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { jobStatus } from "@mds/shared/domain/job/JobState"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { jobSubject } from "@mds/shared/eventstore/Subjects"
import { NatsClient } from "@mds/shared/nats/NatsClient"

const decodeEvent = Schema.decodeUnknownOption(Schema.fromJsonString(JobEvent))

export interface CancelSignal {
  /** Completes when the job is canceled. */
  readonly wait: Effect.Effect<void>
  readonly isCanceled: () => boolean
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
      const store = yield* EventStore

      /**
       * Every append is also a core NATS message on the subject, even one the stream refused (a conflicting
       * expected sequence): the stream's fold is what says whether the job really was canceled.
       */
      const isCanceled = (subject: string) =>
        store.readSubject(JobEvent, subject).pipe(
          Effect.map((stored) => stored.reduce((state, item) => JobDecider.evolve(state, item.event), JobDecider.initialState())),
          Effect.map((state) => jobStatus(state) === "canceled"),
          Effect.orElseSucceed(() => false)
        )

      const watch = (projectId: string, jobId: string) =>
        Effect.gen(function* () {
          const subject = jobSubject(projectId, jobId)
          const canceled = yield* Deferred.make<void>()
          let seen = false
          const confirm = (services: Context.Context<never>) =>
            Effect.runForkWith(services)(
              isCanceled(subject).pipe(
                Effect.flatMap((yes) =>
                  yes ? Effect.sync(() => (seen = true)).pipe(Effect.andThen(Deferred.succeed(canceled, undefined))) : Effect.void
                )
              )
            )
          const services = yield* Effect.context<never>()
          yield* Effect.acquireRelease(
            Effect.sync(() =>
              connection.subscribe(subject, {
                callback: (error, msg) => {
                  if (error !== null) return
                  const event = decodeEvent(msg.string())
                  if (event._tag === "Some" && event.value._tag === "JobCanceled") confirm(services)
                }
              })
            ),
            (subscription) => Effect.sync(() => subscription.unsubscribe())
          )
          return { wait: Deferred.await(canceled), isCanceled: () => seen } satisfies CancelSignal
        })

      return JobCancelWatch.of({ watch })
    })
  )
}
