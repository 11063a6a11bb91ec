// The /v1 shape of a job: its read-model document with ISO 8601 dates and only the fields its status allows.
// Shared by the gateway (GET /jobs, SSE) and the webhook dispatcher (job.completed/job.failed payloads).
import type { DownloadOptions } from "../domain/job/DownloadOptions.ts"
import type { JobView } from "../domain/job/JobView.ts"
import type { Job as ApiJob, JobOptions, JobStatus as ApiJobStatus } from "./Responses.ts"

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
  ...(options.subtitles === undefined ? {} : { subtitles: options.subtitles })
})

/** `downloadUrl` is the link for a completed job's artifact (null otherwise). */
export const toJobResponse = (view: JobView, downloadUrl: string | null): ApiJob => {
  const status = apiStatus(view.status)
  return {
    id: view.id,
    status,
    progress: Math.min(100, Math.max(0, Math.round(view.progress))),
    platform: view.platform,
    requested_format: view.requestedFormat,
    created_at: iso(view.createdAt),
    ...(view.startedAt === null ? {} : { started_at: iso(view.startedAt) }),
    ...(view.completedAt === null ? {} : { completed_at: iso(view.completedAt) }),
    ...(status === "completed" && view.artifact !== null && downloadUrl !== null
      ? {
          result: {
            download_url: downloadUrl,
            filename: view.artifact.filename,
            mime_type: view.artifact.mimeType,
            size_bytes: view.artifact.sizeBytes,
            expires_at: iso(view.artifact.availableUntil)
          }
        }
      : {}),
    ...(status === "failed" && view.error !== null
      ? { error: { code: view.error.code, message: view.error.message, retryable: view.error.retryable } }
      : {}),
    ...(view.options === undefined ? {} : { options: toJobOptions(view.options) })
  }
}
