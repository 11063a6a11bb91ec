// The /v1 shape of a job: its read-model document with ISO 8601 dates and only the fields its status allows.
// Shared by the gateway (GET /jobs, SSE) and the webhook dispatcher (job.completed/job.failed payloads).
import { Effect } from "effect"
import type { ArtifactStore, ArtifactStoreError } from "../artifacts/ArtifactStore.ts"
import { downloadLinkOf } from "../artifacts/DownloadLink.ts"
import type { DownloadOptions } from "../domain/job/DownloadOptions.ts"
import type { JobArtifact } from "../domain/job/JobEvent.ts"
import type { JobView } from "../domain/job/JobView.ts"
import { clientRetriesOf } from "../domain/job/JobState.ts"
import { formatIdOf } from "../domain/media/FormatId.ts"
import type { JobDeliveryView } from "../domain/job/JobDelivery.ts"
import type { Job as ApiJob, JobDelivery, JobOptions, JobStatus as ApiJobStatus } from "./Responses.ts"

type ApiJobDelivery = typeof JobDelivery.Type

export type { ApiJob, ApiJobStatus }

const iso = (epochMs: number) => new Date(epochMs).toISOString()

/** An expired job is never shown (it is not found), so it has no API status. */
const apiStatus = (status: JobView["status"]): ApiJobStatus => (status === "expired" ? "failed" : status)

/** The options in the request's own spelling (snake_case), so a client reads back what it sent. */
export const toJobOptions = (options: DownloadOptions): JobOptions => ({
  ...(options.section === undefined ? {} : { section: options.section }),
  ...(options.videoCodec === undefined ? {} : { video_codec: options.videoCodec }),
  ...(options.container === undefined ? {} : { container: options.container }),
  ...(options.audioBitrate === undefined ? {} : { audio_bitrate: options.audioBitrate }),
  ...(options.mute === undefined ? {} : { mute: options.mute }),
  ...(options.embedMetadata === undefined ? {} : { embed_metadata: options.embedMetadata }),
  ...(options.embedThumbnail === undefined ? {} : { embed_thumbnail: options.embedThumbnail }),
  ...(options.subtitles === undefined ? {} : { subtitles: options.subtitles }),
  ...(options.maxDurationSeconds === undefined ? {} : { max_duration: options.maxDurationSeconds }),
  ...(options.delivery === undefined
    ? {}
    : {
        destination: { id: options.delivery.destinationId, path: options.delivery.pathTemplate },
        ...(options.delivery.sidecars.length === 0 ? {} : { sidecars: options.delivery.sidecars })
      })
})

/** The delivery as answered: snake_case, times as ISO 8601. */
const toJobDelivery = (delivery: JobDeliveryView): ApiJobDelivery => ({
  destination_id: delivery.destinationId,
  path: delivery.path,
  status: delivery.status,
  attempts: delivery.attempts,
  ...(delivery.retryAt === null ? {} : { next_attempt_at: iso(delivery.retryAt) }),
  ...(delivery.error === null ? {} : { error: { code: delivery.error.code, message: delivery.error.message } }),
  ...(delivery.removedAt === undefined ? {} : { removed_at: iso(delivery.removedAt) })
})

/**
 * The artifact a job's answer links to: a completed job's; and a job whose delivery failed for good keeps the link to
 * its stored file until the job's end. None otherwise.
 */
export const linkedArtifactOf = (view: JobView): JobArtifact | null =>
  view.status === "completed" || (view.status === "failed" && view.delivery?.status === "failed") ? view.artifact : null

/** `downloadUrl` is the link to `linkedArtifactOf(view)` (null when it has none), made by `downloadLinkOf`. */
export const toJobResponse = (view: JobView, downloadUrl: string | null): ApiJob => {
  const status = apiStatus(view.status)
  const artifact = linkedArtifactOf(view)
  const retries = clientRetriesOf(view)
  return {
    id: view.id,
    status,
    progress: Math.min(100, Math.max(0, Math.round(view.progress))),
    platform: view.platform,
    requested_format: formatIdOf(view.format),
    created_at: iso(view.createdAt),
    ...(view.startedAt === null ? {} : { started_at: iso(view.startedAt) }),
    ...(view.completedAt === null ? {} : { completed_at: iso(view.completedAt) }),
    ...(view.schedule === undefined ? {} : { starts_at: iso(view.schedule.startsAt) }),
    ...(artifact !== null && downloadUrl !== null
      ? {
          result: {
            download_url: downloadUrl,
            filename: artifact.filename,
            mime_type: artifact.mimeType,
            size_bytes: artifact.sizeBytes,
            expires_at: iso(artifact.availableUntil)
          }
        }
      : {}),
    ...(status === "failed" && view.error !== null
      ? { error: { code: view.error.code, message: view.error.message, retryable: view.error.retryable } }
      : {}),
    ...(view.options === undefined ? {} : { options: toJobOptions(view.options) }),
    // A wait for the start of a stream its first run found not begun is a try of its own, not a retry.
    ...(retries === 0 ? {} : { retries, attempts: view.attempt }),
    ...(view.recording === undefined
      ? {}
      : {
          recording: {
            started_at: iso(view.recording.startedAt),
            seconds: view.recording.seconds,
            bytes: view.recording.bytes,
            max_duration: view.recording.maxDurationSeconds,
            stop_requested: view.recording.stopRequestedAt !== null,
            ended: view.recording.ended
          }
        }),
    ...(view.delivery === undefined ? {} : { delivery: toJobDelivery(view.delivery) }),
    ...(status === "completed" && view.partial !== undefined ? { partial: true as const, partial_reason: view.partial } : {})
  }
}

/** The job as answered now, its link signed by `downloadLinkOf` with this service's settings (SSE, webhooks). */
export const answerJob = (artifacts: ArtifactStore["Service"], view: JobView): Effect.Effect<ApiJob, ArtifactStoreError> => {
  const artifact = linkedArtifactOf(view)
  return artifact === null
    ? Effect.succeed(toJobResponse(view, null))
    : Effect.map(downloadLinkOf(artifacts, artifact), (link) => toJobResponse(view, link))
}
