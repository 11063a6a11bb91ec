// GET /v1/jobs/:jobId/events (extension): the job as server-sent events, one `job` event per change until it ends.
import { sameRecording } from "@mds/shared/domain/job/JobRecording"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { decodeJobEventJson, type JobEvent } from "@mds/shared/domain/job/JobEvent"
import { hasEnded } from "@mds/shared/domain/job/JobState"
import { isJobVisible, type JobView } from "@mds/shared/domain/job/JobView"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { JobId } from "@mds/shared/ids/Ids"
import { foldJobEvents } from "@mds/shared/application/job/JobStates"
import { followDecoded } from "@mds/shared/nats/StreamFollower"
import { Clock, Effect, Option, Queue, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { openEventStream, type SendEvent } from "../http/EventStream.ts"
import type { RouteInput, RouteReply } from "../http/Route.ts"
import { answerJob } from "@mds/shared/api/JobResponse"
import { loadJobView } from "./loadJobView.ts"

const isJobId = Schema.is(JobId)

/** Events read ahead of the stream's writes. */
const FOLLOWED_EVENTS = 64

export const streamJobEvents = Effect.fn("streamJobEvents")(function* (input: RouteInput, principal: Principal) {
  const jobId = input.params["jobId"] ?? ""
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const now = yield* Clock.currentTimeMillis
  const initial = yield* loadJobView(principal.projectId, jobId)
  if (Option.isNone(initial) || !isJobVisible(initial.value, now)) return yield* new JobNotFound({ jobId })
  const artifacts = yield* ArtifactStore

  // Events after the document's last one, folded with the job's one evolve. A follower, not a bare consumer: when the
  // consumer's server dies it is re-created on a live one from the last event seen, so the stream still reaches the end.
  const follow = (sendEvent: SendEvent) =>
    Effect.gen(function* () {
      const send = (doc: JobView) => Effect.flatMap(answerJob(artifacts, doc), (job) => sendEvent("job", job, doc.lastSeq))
      let doc = initial.value
      yield* send(doc)
      if (hasEnded(doc)) return
      // Bounded: the follower waits while it is full (and the stream's buffer, a client that reads slowly).
      const events = yield* Queue.bounded<{ readonly event: JobEvent; readonly seq: number }>(FOLLOWED_EVENTS)
      yield* Effect.addFinalizer(() => Queue.shutdown(events))
      yield* followDecoded({
        name: `job_events:${jobId}`,
        stream: JOBS_STREAM.name,
        filterSubject: jobSubject(principal.projectId, jobId),
        from: { afterSeq: doc.lastSeq },
        logStateChanges: false,
        decode: decodeJobEventJson,
        onEvent: (event, { seq }) => Effect.runPromise(Effect.asVoid(Queue.offer(events, { event, seq })))
      })
      while (!hasEnded(doc)) {
        const next = foldJobEvents(doc, [yield* Queue.take(events)])
        if (next === null || next === doc) continue
        const changed = next.status !== doc.status || Math.round(next.progress) !== Math.round(doc.progress) || !sameRecording(next, doc)
        doc = next
        if (changed) yield* send(doc)
      }
    }).pipe(Effect.scoped)

  // A job past its lifetime is gone: the stream ends with it.
  const stream = yield* openEventStream("job event stream", principal.projectId, follow, {
    endAfterMs: Math.max(0, initial.value.expiresAt - now)
  })
  return { _tag: "File", body: stream.body, headers: stream.headers } satisfies RouteReply
})
