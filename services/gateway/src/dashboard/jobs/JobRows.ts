// A job as the Jobs tab shows it (and its live stream sends it): the media's title and picture, status, actions.
import { isRecording } from "@mds/shared/domain/job/JobRecording"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { formatIdOf } from "@mds/shared/domain/media/FormatId"
import { Effect } from "effect"
import { visibleMedia } from "../../media/visibleMedia.ts"
import { formatTime } from "../html/Format.ts"
import { type JobAction, jobActionsOf } from "./JobActions.ts"

export interface JobRow {
  readonly id: string
  readonly status: string
  readonly progress: number
  /** What the progress cell says: the percent, or while the job records a live stream the seconds recorded. */
  readonly progressText: string
  readonly format: string
  readonly platform: string
  readonly createdAt: string
  /** Extension: a scheduled job's announced start (formatted); null for every other job. */
  readonly startsAt: string | null
  /** Epoch ms: where a row that joins the list goes (newest first). */
  readonly created: number
  readonly error: string | null
  /** The media's title when the job was queued from a resolve the project may still see; null: show the URL. */
  readonly title: string | null
  readonly url: string
  /** The media's picture, "" when none is known. */
  readonly thumbnail: string
  readonly actions: ReadonlyArray<JobAction>
  /** The file's name once completed (what Save stores it as). */
  readonly filename: string | null
  /** Extension: the delivery into a destination, in words (`delivered: <path>`), null for a job without one. */
  readonly delivery: string | null
}

/** How far a job's delivery came, as the Jobs tab says it under the status. */
export const deliveryText = (job: JobView): string | null => {
  const delivery = job.delivery
  if (delivery === undefined) return job.options?.delivery === undefined ? null : "delivery: after the download"
  switch (delivery.status) {
    case "pending":
      return delivery.attempts === 0 ? `delivering to ${delivery.path}` : `delivering to ${delivery.path} (${delivery.attempts} failed)`
    case "delivered":
      return `delivered: ${delivery.path}`
    case "failed":
      return `not delivered: ${delivery.error?.code ?? "failed"}`
    case "removed":
      return `removed: ${delivery.path}`
  }
}

export interface JobMedia {
  readonly title: string
  readonly thumbnail: string
}

export const toJobRow = (job: JobView, media: JobMedia | null): JobRow => ({
  id: job.id,
  status: job.status,
  progress: Math.round(job.progress),
  progressText: isRecording(job) ? `recording ${job.recording?.seconds ?? 0} s` : `${Math.round(job.progress)}%`,
  format: formatIdOf(job.format),
  platform: job.platform,
  createdAt: formatTime(job.createdAt),
  startsAt: job.status === "scheduled" && job.schedule !== undefined ? formatTime(job.schedule.startsAt) : null,
  created: job.createdAt,
  error: job.error === null ? null : `${job.error.code}: ${job.error.message}`,
  title: media?.title ?? null,
  url: job.source.url,
  thumbnail: media?.thumbnail ?? "",
  actions: jobActionsOf({
    status: job.status,
    retryable: job.error?.retryable === true,
    recording: isRecording(job) && job.recording?.stopRequestedAt === null
  }),
  filename: job.status === "completed" ? (job.artifact?.filename ?? null) : null,
  delivery: deliveryText(job)
})

/**
 * The media a job was queued with (by media_id), as the job's project may see it (visibleMedia, the one rule, which
 * also reads a media resolved a moment ago and not projected yet); none for a job queued by URL, or once the media
 * expired. Resolved media are cached in memory, so this is cheap per row.
 */
export const jobMediaOf = (job: JobView) =>
  job.source.mediaId === null
    ? Effect.succeed(null)
    : visibleMedia(job.source.mediaId, job.projectId).pipe(
        Effect.map((media): JobMedia | null => ({ title: media.title, thumbnail: media.thumbnail })),
        Effect.catchTag("MediaNotFound", () => Effect.succeed(null))
      )

export const jobRowOf = (job: JobView) => Effect.map(jobMediaOf(job), (media) => toJobRow(job, media))
