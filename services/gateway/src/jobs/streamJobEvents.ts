// GET /v1/jobs/:jobId/events (extension): the job as server-sent events, one `job` event per change until it ends.
import { PassThrough } from "node:stream"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { decodeJobEventJson, type JobEvent } from "@mds/shared/domain/job/JobEvent"
import { hasEnded } from "@mds/shared/domain/job/JobState"
import { isJobVisible, type JobView } from "@mds/shared/domain/job/JobView"
import { JOBS_STREAM, jobSubject } from "@mds/shared/eventstore/Subjects"
import { JobId } from "@mds/shared/ids/Ids"
import { foldJobEvents } from "@mds/shared/jobs/JobStates"
import { followDecoded } from "@mds/shared/nats/StreamFollower"
import { Clock, Effect, Fiber, Option, Queue, Schedule, Schema } from "effect"
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

const sseEvent = (name: string, id: number, data: unknown) => `event: ${name}\nid: ${id}\ndata: ${JSON.stringify(data)}\n\n`

export const streamJobEvents = Effect.fn("streamJobEvents")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const now = yield* Clock.currentTimeMillis
  const initial = yield* loadJobView(principal.projectId, jobId)
  if (Option.isNone(initial) || !isJobVisible(initial.value, now)) return yield* new JobNotFound({ jobId })
  const artifacts = yield* ArtifactStore
  const body = new PassThrough()

  const send = (doc: JobView) =>
    Effect.map(answerJob(artifacts, doc), (job) => {
      body.write(sseEvent("job", doc.lastSeq, job))
    })

  // Events after the document's last one, folded with the job's one evolve. A follower, not a bare consumer: when the
  // consumer's server dies it is re-created on a live one from the last event seen, so the stream still reaches the end.
  const follow = Effect.gen(function* () {
    let doc = initial.value
    yield* Effect.sync(() => body.write(`retry: ${RECONNECT_MS}\n\n`))
    yield* send(doc)
    if (hasEnded(doc)) return
    const events = yield* Queue.unbounded<{ readonly event: JobEvent; readonly seq: number }>()
    yield* followDecoded({
      name: `job_events:${jobId}`,
      stream: JOBS_STREAM.name,
      filterSubject: jobSubject(principal.projectId, jobId),
      from: { afterSeq: doc.lastSeq },
      logStateChanges: false,
      decode: decodeJobEventJson,
      onEvent: (event, { seq }) => {
        Queue.offerUnsafe(events, { event, seq })
      }
    })
    while (!hasEnded(doc)) {
      const next = foldJobEvents(doc, [yield* Queue.take(events)])
      if (next === null || next === doc) continue
      const changed = next.status !== doc.status || Math.round(next.progress) !== Math.round(doc.progress)
      doc = next
      if (changed) yield* send(doc)
    }
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
