// The per-job limits on media duration and file size, judged on what yt-dlp announces, reports and produces.
import type { JobErrorCode } from "@mds/shared/domain/job/JobEvent"

export interface JobLimits {
  /** Seconds; 0 means no limit. */
  readonly maxDurationSeconds: number
  /** Bytes; 0 means no limit. */
  readonly maxFileBytes: number
  /** Bytes the project's monthly quota still allows (the work message's quotaBytesLeft); null: no byte quota. */
  readonly quotaBytesLeft?: number | null
}

/** What is known about the media at some point of the job: before the download, during it, or after it. */
export interface MediaFacts {
  readonly durationSeconds?: number | null
  /** A size yt-dlp announced or the server declared (Content-Length), or bytes already on disk. */
  readonly bytes?: number | null
}

export interface LimitBreach {
  readonly code: Extract<JobErrorCode, "media_too_long" | "file_too_large" | "quota_exceeded">
  readonly message: string
}

/**
 * The most bytes the job may hold: the smaller of MAX_FILE_SIZE_MB and what the project's byte quota left; null when
 * neither caps it. A live recording ends (keeping its file) once it holds that much.
 */
export const byteCapOf = (limits: JobLimits): number | null => {
  const caps = [limits.maxFileBytes > 0 ? limits.maxFileBytes : null, limits.quotaBytesLeft ?? null].filter(
    (cap): cap is number => cap !== null
  )
  return caps.length === 0 ? null : Math.min(...caps)
}

/** The limits without their byte caps: a live recording enforces those itself by ending at its cap (byteCapOf). */
export const withoutByteCaps = (limits: JobLimits): JobLimits => ({ ...limits, maxFileBytes: 0, quotaBytesLeft: null })

const megabytes = (bytes: number) => `${(bytes / (1024 * 1024)).toFixed(bytes < 10 * 1024 * 1024 ? 1 : 0)} MB`

/** The first limit the facts exceed, or null. Unknown facts never breach: they are judged again later. */
export const limitBreach = (limits: JobLimits, facts: MediaFacts): LimitBreach | null => {
  const duration = facts.durationSeconds ?? null
  if (limits.maxDurationSeconds > 0 && duration !== null && duration > limits.maxDurationSeconds) {
    return {
      code: "media_too_long",
      message: `The media lasts ${Math.round(duration)} s; this service downloads at most ${limits.maxDurationSeconds} s.`
    }
  }
  const bytes = facts.bytes ?? null
  if (limits.maxFileBytes > 0 && bytes !== null && bytes > limits.maxFileBytes) {
    return {
      code: "file_too_large",
      message: `The file would be larger than ${megabytes(limits.maxFileBytes)}, the most this service stores per job.`
    }
  }
  const left = limits.quotaBytesLeft ?? null
  if (left !== null && bytes !== null && bytes > left) {
    return {
      code: "quota_exceeded",
      message: `The file would take the project past its downloaded-bytes quota for the month (${megabytes(left)} left).`
    }
  }
  return null
}
