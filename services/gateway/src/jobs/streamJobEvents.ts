// GET /v1/jobs/:jobId/events (extension): the job as server-sent events, one `job` event per change until it ends.
import { PassThrough } from "node:stream"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, isJobVisible, type JobView } from "@mds/shared/domain/job/JobView"
import { JOBS_STREAM, jobSubject } from "@mds/shared/eventstore/Subjects"
import { JobId } from "@mds/shared/ids/Ids"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { DeliverPolicy } from "@nats-io/jetstream"
import { Clock, Effect, Fiber, Option, Schedule, Schema, Stream } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { trackLiveStream } from "../http/LiveStreams.ts"
import type { RouteInput, RouteReply } from "../http/Route.ts"
import { answerJob } from "@mds/shared/api/JobResponse"
import { loadJobView } from "./loadJobView.ts"

const isJobId = Schema.is(JobId)

/** Comment lines keep proxies from closing an idle stream. */
const HEARTBEAT = Schedule.spaced("15 seconds")
/** Tells EventSource clients how long to wait before reconnecting. */
const RECONNECT_MS = 3_000

const isFinished = (doc: JobView) => doc.status === "completed" || doc.status === "failed" || doc.status === "expired"

const sseEvent = (name: string, id: number, data: unknown) => `event: ${name}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`

export const streamJobEvents = Effect.fn("streamJobEvents")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const now = yield* Clock.currentTimeMillis
  const initial = yield* loadJobView(principal.projectId, jobId)
  if (Option.isNone(initial) || !isJobVisible(initial.value, now)) return yield* new JobNotFound({ jobId })
  const { js } = yield* NatsClient
  const artifacts = yield* ArtifactStore
  const body = new PassThrough()

  const send = (doc: JobView) =>
    Effect.map(answerJob(artifacts, doc), (job) => {
      body.write(sseEvent("job", doc.lastSeq, job))
    })

  // Events after the document's last one, folded exactly as the read model folds them.
  const follow = Effect.gen(function* () {
    let doc = initial.value
    yield* Effect.sync(() => body.write(`retry: ${RECONNECT_MS}\n\n`))
    yield* send(doc)
    if (isFinished(doc)) return
    const messages = yield* Effect.acquireRelease(
      Effect.tryPromise(async () => {
        const consumer = await js.consumers.get(JOBS_STREAM.name, {
          filter_subjects: jobSubject(principal.projectId, jobId),
          deliver_policy: DeliverPolicy.StartSequence,
          opt_start_seq: doc.lastSeq + 1
        })
        return consumer.consume()
      }),
      (iterator) =>
        Effect.promise(() =>
          iterator.close().then(
            () => undefined,
            () => undefined
          )
        )
    )
    yield* Stream.fromAsyncIterable(messages, (cause) => cause).pipe(
      Stream.mapEffect((message) =>
        Effect.gen(function* () {
          const event = decodeJobEventJson(message.string())
          if (Option.isNone(event)) return false
          const next = evolveJobView(doc, event.value, message.seq)
          if (next === null || next === doc) return false
          const changed = next.status !== doc.status || Math.round(next.progress) !== Math.round(doc.progress)
          doc = next
          if (changed) yield* send(doc)
          return isFinished(doc)
        })
      ),
      Stream.takeUntil((finished) => finished),
      Stream.runDrain
    )
  }).pipe(Effect.scoped)

  const expiresIn = Math.max(0, initial.value.expiresAt - now)
  const heartbeat = Effect.sync(() => body.write(": keep-alive\n\n")).pipe(Effect.repeat(HEARTBEAT), Effect.asVoid)
  const fiber = yield* Effect.forkDetach(
    Effect.raceFirst(follow, heartbeat).pipe(
      // A job past its lifetime is gone: the stream ends with it.
      Effect.timeoutOption(expiresIn),
      Effect.catchCause((cause) => Effect.logWarning("job event stream failed", cause)),
      Effect.ensuring(Effect.sync(() => body.end()))
    )
  )
  trackLiveStream(body)
  body.once("close", () => Effect.runFork(Fiber.interrupt(fiber)))
  const reply: RouteReply = {
    _tag: "File",
    body,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      // nginx and similar proxies would otherwise buffer the stream.
      "x-accel-buffering": "no"
    }
  }
  return reply
})
