// When a job's admission slot may be freed, read from the job's one state: the rule every releaser of a slot follows.
import type { SlotReleaseReason } from "../admission/AdmissionEvent.ts"
import { type JobState, jobStatus, retriesOf, runsOfCurrentTry } from "./JobState.ts"

/**
 * Why the slot of the job's current try may be freed now, or null while it must stay held: the job is queued or
 * processing, or it was canceled after a run of this try started. That run may still be going (yt-dlp and its ffmpeg
 * downloading); its worker stops it, removes its files and only then frees the slot. Freeing it at cancel time would
 * let a third run start beside it. A worker that died never frees it: its work message is handed to another worker,
 * which finds the job ended and frees the slot (JobRun), and at the end of the job's lifetime the slot frees itself
 * (AdmissionDecider). Runs of earlier tries do not count: each ended before its retry.
 */
export const slotReleaseOf = (state: JobState): SlotReleaseReason | null => {
  const status = jobStatus(state)
  switch (status) {
    case "none":
    // A scheduled job holds no slot: nothing to free (one claimed for it whose JobLiveBegan never came is an orphan).
    case "scheduled":
    case "queued":
    case "processing":
      return null
    case "canceled":
      // A job canceled once its file was stored has no run left to wait for: its last run ended with JobStored.
      return runsOfCurrentTry(state) > 0 && state?.delivery === undefined ? null : "canceled"
    case "completed":
    case "failed":
    case "expired":
      return status
  }
}

/** The bytes a job's slot release counts toward the month's quota: the size of a completed job's file, else 0. */
export const slotReleaseBytes = (state: JobState): number => (jobStatus(state) === "completed" ? (state?.artifact?.sizeBytes ?? 0) : 0)

/**
 * Why the slot of an earlier try (`slotTry`) of the job is freed once its releaser did not: a retry follows a failure
 * only ("failed"); the try a wait for a stream's start ended (JobAwaitingStart) never downloaded, and its claim counts
 * nothing toward the day's jobs ("unused"), since the stream's start claims again.
 */
export const earlierTryRelease = (state: JobState, slotTry: number): "unused" | "failed" =>
  state?.retry?.by === "stream_start" && slotTry === retriesOf(state) - 1 ? "unused" : "failed"
