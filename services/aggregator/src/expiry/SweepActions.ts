// The expiry sweeper's pure reaction: what must be deleted or expired now, for one job or one generated thumbnail.
import type { React, Wake } from "@mds/shared/domain/Reaction"
import { hasEnded, jobStatus } from "@mds/shared/domain/job/JobState"
import type { JobView } from "@mds/shared/domain/job/JobView"

/** What the sweeper already did for a job (kept in memory: after a restart it is done again, which removes nothing). */
export interface SweepProgress {
  readonly artifactRemoved: boolean
  readonly documentRemoved: boolean
}

export const nothingSwept: SweepProgress = { artifactRemoved: false, documentRemoved: false }

/** What the sweeper knows of one thing that expires. */
export type SweepState =
  /**
   * A job, in its one state (folded from the followed stream), and what was swept of it. `graceMs` keeps the document
   * a little past the job's lifetime, so that the projection has written the job's last event before the document goes
   * (otherwise a late write would bring it back until the bucket's max age).
   */
  | { readonly _tag: "Job"; readonly job: JobView; readonly progress: SweepProgress; readonly graceMs: number }
  /** A thumbnail the extractor generated ("thumbnails/<mediaId>.jpg"): an artifact living as long as its media. */
  | { readonly _tag: "Thumbnail"; readonly key: string; readonly expiresAt: number; readonly removed: boolean }

/** The sweeper is woken by its clock only. */
export type SweepTrigger = Wake<"Sweep">

/** Each is safe to repeat: the decider turns a second ExpireJob into nothing, and removing what is gone does nothing. */
export type SweepAction =
  /** Queued or processing past its lifetime: record JobExpired and give the slot back. */
  | { readonly _tag: "ExpireJob" }
  /** The completed job's file is past its link's lifetime: delete it from the artifact store. */
  | { readonly _tag: "RemoveArtifact"; readonly key: string }
  /** The job can no longer be read: delete its read-model document. */
  | { readonly _tag: "RemoveDocument" }
  /** The thumbnail's media expired: delete the file. */
  | { readonly _tag: "RemoveThumbnail"; readonly key: string }

export const react: React<SweepState, SweepTrigger, SweepAction> = (state, { now }) => {
  if (state._tag === "Thumbnail") return !state.removed && now >= state.expiresAt ? [{ _tag: "RemoveThumbnail", key: state.key }] : []
  const { job, progress, graceMs } = state
  if (!hasEnded(job)) return now >= job.expiresAt ? [{ _tag: "ExpireJob" }] : []
  const actions: Array<SweepAction> = []
  if (jobStatus(job) === "completed" && job.artifact !== null && !progress.artifactRemoved && now >= job.artifact.availableUntil) {
    actions.push({ _tag: "RemoveArtifact", key: job.artifact.key })
  }
  if (!progress.documentRemoved && now >= job.expiresAt + graceMs) actions.push({ _tag: "RemoveDocument" })
  return actions
}

/** Nothing is left to do for it, ever: the sweeper can forget it. */
export const isSweptForGood = (state: SweepState): boolean => {
  if (state._tag === "Thumbnail") return state.removed
  const { job, progress } = state
  return hasEnded(job) && progress.documentRemoved && (jobStatus(job) !== "completed" || job.artifact === null || progress.artifactRemoved)
}
