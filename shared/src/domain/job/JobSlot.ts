// When a job's admission slot may be freed, read from the job's one state: the rule every releaser of a slot follows.
import type { SlotReleaseReason } from "../admission/AdmissionEvent.ts"
import { type JobState, jobStatus } from "./JobState.ts"

/**
 * Why the job's slot may be freed now, or null while it must stay held: the job is queued or processing, or it was
 * canceled after a run started. That run may still be going (yt-dlp and its ffmpeg downloading); its worker stops it,
 * removes its files and only then frees the slot. Freeing it at cancel time would let a third run start beside it.
 * A worker that died never frees it: its work message is handed to another worker, which finds the job ended and
 * frees the slot (DownloadJob), and at the end of the job's lifetime the slot frees itself (AdmissionDecider).
 */
export const slotReleaseOf = (state: JobState): SlotReleaseReason | null => {
  const status = jobStatus(state)
  switch (status) {
    case "none":
    case "queued":
    case "processing":
      return null
    case "canceled":
      return state !== null && state.attempt > 0 ? null : "canceled"
    case "completed":
    case "failed":
    case "expired":
      return status
  }
}

/** The bytes a job's slot release counts toward the month's quota: the size of a completed job's file, else 0. */
export const slotReleaseBytes = (state: JobState): number => (jobStatus(state) === "completed" ? (state?.artifact?.sizeBytes ?? 0) : 0)
