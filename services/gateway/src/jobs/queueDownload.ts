// POST /v1/media/download: pick the media and format, claim a project slot, record JobQueued, hand the job to a worker.
import { DownloadRequest } from "@mds/shared/api/Requests"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { FormatUnavailable, SubtitlesUnavailable } from "@mds/shared/domain/DomainErrors"
import { parseSubtitleFormatId } from "@mds/shared/domain/media/SubtitleTrack"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/domain/job/DownloadWork"
import { jobCommands } from "@mds/shared/domain/job/JobCommands"
import type { JobSource } from "@mds/shared/domain/job/JobEvent"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { newId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Option, Schedule } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import { decodeBody } from "../http/RequestBody.ts"
import { InvalidOptions } from "../http/GatewayErrors.ts"
import { json, type RouteInput } from "../http/Route.ts"
import { vetMediaUrl } from "../media/resolveMedia.ts"
import { visibleMedia } from "../media/visibleMedia.ts"
import { PlatformHealthBoard } from "../platforms/PlatformHealthBoard.ts"
import { admitJob, releaseAdmittedSlot } from "./admitJob.ts"
import { checkOptions, requestedOptions } from "./requestedOptions.ts"
import type { DownloadOptions } from "@mds/shared/domain/job/DownloadOptions"
import { JobViewCache } from "./JobViewCache.ts"

// The same schema the OpenAPI document describes.
const DownloadBody = DownloadRequest

interface Target {
  readonly source: JobSource
  readonly platform: string
  readonly format: string
  /** Whole seconds when a resolve told (0: the platform did not say), null when downloading by URL. */
  readonly durationSeconds: number | null
  /** Extension: the media's subtitle languages when a resolve told, null when downloading by URL. */
  readonly subtitleLanguages: ReadonlyArray<string> | null
}

/** By `media_id`: only media the project may see (visibleMedia), with a format it offers. */
const targetFromMedia = Effect.fn("targetFromMedia")(function* (mediaId: string, format: string, projectId: string) {
  const media = yield* visibleMedia(mediaId, projectId)
  if (media.type === "playlist") {
    return yield* new InvalidOptions({ message: "media_id: this media is a playlist; download its entries by their url." })
  }
  const subtitleLanguages = (media.subtitles ?? []).map((track) => track.language)
  const subtitleFormat = parseSubtitleFormatId(format)
  if (Option.isSome(subtitleFormat)) {
    if (!subtitleLanguages.includes(subtitleFormat.value)) {
      return yield* new SubtitlesUnavailable({ missing: [subtitleFormat.value], available: subtitleLanguages })
    }
  } else {
    const available = media.formats.map((f) => f.id)
    if (!available.includes(format)) return yield* new FormatUnavailable({ format, available })
  }
  return {
    source: { url: media.url, mediaId },
    platform: media.platform,
    format,
    durationSeconds: media.duration,
    subtitleLanguages
  }
})

const targetFromUrl = Effect.fn("targetFromUrl")(function* (raw: string, format: string) {
  const { platform, url } = yield* vetMediaUrl("url", raw)
  if (Option.isNone(parseFormatId(format)) && Option.isNone(parseSubtitleFormatId(format))) {
    return yield* new FormatUnavailable({ format, available: [] })
  }
  return { source: { url: url.href, mediaId: null }, platform: platform.id, format, durationSeconds: null, subtitleLanguages: null }
})

/** The schema (oneOf) has already refused bodies with both or neither of media_id and url. */
const chooseTarget = Effect.fn("chooseTarget")(function* (body: typeof DownloadBody.Type, projectId: string) {
  if (!("media_id" in body)) return yield* targetFromUrl(body.url, body.format)
  const target = yield* targetFromMedia(body.media_id, body.format, projectId)
  // By URL the platform was checked while vetting it; by media id it is known only now.
  yield* (yield* PlatformHealthBoard).ensureAvailable(target.platform)
  return target
})

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
const giveUpJob = (projectId: string, jobId: string, queued: boolean) =>
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
