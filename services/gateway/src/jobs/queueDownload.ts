// POST /v1/media/download: pick the media and format, claim a project slot, record JobQueued, hand the job to a worker.
import { DownloadRequest } from "@mds/shared/api/Requests"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import { newId } from "@mds/shared/ids/Ids"
import { Clock, Effect } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { admitJob } from "./admitJob.ts"
import { chooseTarget, type Target } from "./downloadTarget.ts"
import { giveUpJob } from "./giveUpJob.ts"
import { JobViewCache } from "./JobViewCache.ts"
import { checkOptions, requestedOptions } from "./requestedOptions.ts"

// The same schema the OpenAPI document describes.
const DownloadBody = DownloadRequest

const recordJob = Effect.fn("recordJob")(function* (
  projectId: string,
  jobId: string,
  target: Target,
  options: DownloadOptions,
  quotaBytesLeft: number | null
) {
  const lifetimes = yield* Lifetimes
  const now = yield* Clock.currentTimeMillis
  const { platform, format, source } = target
  const job: QueuedJob = { jobId, projectId, platform, format, source, now, lifetimeMs: lifetimes.jobMs, options }
  const queued = yield* queueJob(job, { isNew: true }) // The job id was generated for this request: nothing to read.
  // Read-your-writes from memory: the first poll after the 202 needs neither the read model nor the stream.
  // The command's resulting state is the job's document (the job's one state), as of the sequence it appended.
  if (queued.state !== null) (yield* JobViewCache).seed({ ...queued.state, lastSeq: queued.lastSeq })
  yield* sendDownloadWork(job, 0, quotaBytesLeft)
})

export const queueDownload = Effect.fn("queueDownload")(function* (input: RouteInput, principal: Principal) {
  const body = yield* decodeBody(DownloadBody, input.body)
  const options = yield* requestedOptions(body)
  const target: Target = yield* chooseTarget(body, principal.projectId)
  yield* checkOptions(options, target.durationSeconds, target.subtitleLanguages)
  const jobId = newId("job")
  // A refused claim (the project is full) stored nothing; one that failed in NATS may have been stored.
  const { quotaBytesLeft } = yield* admitJob(principal.projectId, jobId).pipe(
    Effect.tapError((error) => (error._tag === "EventStoreError" ? giveUpJob(principal.projectId, jobId, false) : Effect.void))
  )
  yield* recordJob(principal.projectId, jobId, target, options, quotaBytesLeft).pipe(
    Effect.tapError(() => giveUpJob(principal.projectId, jobId, true))
  )
  return json(202, { job_id: jobId, status: "queued" })
})
