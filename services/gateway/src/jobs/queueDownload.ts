// POST /v1/media/download: pick the media and format, claim a project slot, record JobQueued, hand the job to a worker.
import { checkRequestedDestination } from "./requestedDestination.ts"
import { DownloadRequest } from "@mds/shared/api/Requests"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import type { QueuedJob } from "@mds/shared/application/job/DownloadWork"
import { queueNewJob } from "@mds/shared/application/job/QueueNewJob"
import { scheduleJob } from "@mds/shared/application/job/ScheduleJob"
import { newId } from "@mds/shared/ids/Ids"
import { Clock, Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { chooseTarget, type Target } from "./downloadTarget.ts"
import { JobViewCache } from "./JobViewCache.ts"
import { checkOptions, requestedOptions } from "./requestedOptions.ts"

// The same schema the OpenAPI document describes.
const DownloadBody = DownloadRequest

export const queueDownload = Effect.fn("queueDownload")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(DownloadBody, input.body)
  const options = yield* requestedOptions(body)
  yield* checkRequestedDestination(principal.projectId, options)
  const target: Target = yield* chooseTarget(body, principal.projectId)
  yield* checkOptions(options, target.durationSeconds, target.subtitleLanguages)
  const jobId = newId("job")
  const lifetimes = yield* Lifetimes
  const now = yield* Clock.currentTimeMillis
  const { platform, format, source } = target
  const job: QueuedJob = { jobId, projectId: principal.projectId, platform, format, source, now, lifetimeMs: lifetimes.jobMs, options }
  // Extension: a stream that has not begun is scheduled (no slot, no work message) until it does.
  const queued = target.upcoming === null ? yield* queueNewJob(job) : yield* scheduleJob(job, target.upcoming.startsAt)
  // Read-your-writes from memory: the first poll after the 202 needs neither the read model nor the stream.
  // The command's resulting state is the job's document (the job's one state), as of the sequence it appended.
  if (queued.state !== null) (yield* JobViewCache).seed({ ...queued.state, lastSeq: queued.lastSeq })
  const startsAt = queued.state?.schedule?.startsAt
  return json(
    202,
    startsAt === undefined
      ? { job_id: jobId, status: "queued" }
      : { job_id: jobId, status: "scheduled", starts_at: new Date(startsAt).toISOString() }
  )
})
