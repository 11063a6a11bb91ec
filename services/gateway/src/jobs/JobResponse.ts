// The /v1 shape of a job: its read-model document with ISO 8601 dates and only the fields its status allows.
import type { JobView } from "@mds/shared/domain/job/JobView"

export type ApiJobStatus = "queued" | "processing" | "completed" | "failed"

export interface ApiJob {
  readonly id: string
  readonly status: ApiJobStatus
  readonly progress: number
  readonly platform: string
  readonly requested_format: string
  readonly created_at: string
  readonly started_at?: string
  readonly completed_at?: string
  readonly result?: {
    readonly download_url: string
    readonly filename: string
    readonly mime_type: string
    readonly size_bytes: number
    readonly expires_at: string
  }
  readonly error?: { readonly code: string; readonly message: string }
}

const iso = (epochMs: number) => new Date(epochMs).toISOString()

/** An expired job is never shown (it is not found), so it has no API status. */
const apiStatus = (status: JobView["status"]): ApiJobStatus => (status === "expired" ? "failed" : status)

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
      ? { error: { code: view.error.code, message: view.error.message } }
      : {})
  }
}
