// What the CLI shows of a running job: its percent, while it records a live stream the duration and size so far, and
// while it waits for a stream that has not begun when it starts.
import type { Job } from "@mds/shared/api/Responses"
import { formatBytes } from "./ProgressDisplay.ts"

/** A live recording shows no percent (its size is unknown): `recording 1:05 recorded, 3.2 MiB`, on one redrawn line. */
export const jobProgressOf = (job: Job): { readonly phase: string; readonly percent: number | null; readonly detail: string } => {
  // A download by URL whose run found the stream not begun waits for it too, so the wait may show up only now.
  if (job.status === "scheduled") {
    return { phase: "scheduled", percent: null, detail: job.starts_at === undefined ? "" : `the stream starts at ${job.starts_at}` }
  }
  const recording = job.recording
  if (job.status !== "processing" || recording === undefined || recording.ended !== null) {
    return { phase: job.status, percent: job.progress, detail: "" }
  }
  const minutes = Math.floor(recording.seconds / 60)
  const duration = `${minutes}:${String(recording.seconds % 60).padStart(2, "0")}`
  const stopping = recording.stop_requested ? " (stopping)" : ""
  return { phase: "recording", percent: null, detail: `${duration} recorded, ${formatBytes(recording.bytes)}${stopping}` }
}
