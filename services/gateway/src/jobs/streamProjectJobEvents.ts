// GET /v1/jobs/events (extension): every change of the project's jobs as server-sent events, filtered, until the client
// leaves.
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { answerJob } from "@mds/shared/api/JobResponse"
import { isJobVisible } from "@mds/shared/domain/job/JobView"
import { Clock, Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { openEventStream } from "../http/EventStream.ts"
import { InvalidRequest } from "../http/GatewayErrors.ts"
import type { RouteInput, RouteReply } from "../http/Route.ts"
import { jobChangeRequestOf, matchesApiJobFilter } from "./JobChangeRequest.ts"
import { followProjectJobChanges, jobStreamTip } from "./ProjectJobChanges.ts"

export const streamProjectJobEvents = Effect.fn("streamProjectJobEvents")(function* (input: RouteInput, principal: Principal) {
  const asked = jobChangeRequestOf(input.query, input.headers)
  if ("message" in asked) return yield* new InvalidRequest({ message: asked.message })
  // Read before the stream opens: a NATS outage is a 503 with the error envelope, not a stream that ends at once.
  const tip = yield* jobStreamTip
  // A reconnecting EventSource resumes after the last event it got (an id past the stream's end means: from now).
  const afterSeq = asked.lastEventId === null ? tip : Math.min(asked.lastEventId, tip)
  const artifacts = yield* ArtifactStore
  const stream = yield* openEventStream("project job event stream", principal.projectId, (send) =>
    Effect.gen(function* () {
      const changes = yield* followProjectJobChanges(principal.projectId, {
        afterSeq,
        matches: (view) => matchesApiJobFilter(asked.filter, view)
      })
      while (true) {
        const { view, seq } = yield* changes.next
        // A job past its lifetime is gone (GET /jobs/{jobId} answers 404): it is not sent.
        if (!isJobVisible(view, yield* Clock.currentTimeMillis)) continue
        yield* send("job", yield* answerJob(artifacts, view), seq)
      }
    }).pipe(Effect.scoped)
  )
  return { _tag: "File", body: stream.body, headers: stream.headers } satisfies RouteReply
})
