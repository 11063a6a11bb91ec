// What the expiry sweeper must do for one job now, as a pure function of its folded view and what was already done.
import type { JobView } from "@mds/shared/domain/job/JobView"

export type SweepAction =
  /** Queued or processing past its lifetime: record JobExpired and give the slot back. */
  | { readonly _tag: "ExpireJob" }
  /** The completed job's file is past its link's lifetime: delete it from the artifact store. */
  | { readonly _tag: "RemoveArtifact"; readonly key: string }
  /** The job can no longer be read: delete its read-model document. */
  | { readonly _tag: "RemoveDocument" }

export interface SweepProgress {
  readonly artifactRemoved: boolean
  readonly documentRemoved: boolean
}

export const nothingSwept: SweepProgress = { artifactRemoved: false, documentRemoved: false }

/**
 * `graceMs` keeps the document a little past the job's lifetime, so that the projection has written the job's
 * last event before the document goes (otherwise a late write would bring it back until the bucket's max age).
 */
export const dueSweepActions = (view: JobView, progress: SweepProgress, now: number, graceMs: number): ReadonlyArray<SweepAction> => {
  if (view.status === "queued" || view.status === "processing") {
    return now >= view.expiresAt ? [{ _tag: "ExpireJob" }] : []
  }
  const actions: Array<SweepAction> = []
  if (view.status === "completed" && view.artifact !== null && !progress.artifactRemoved && now >= view.artifact.availableUntil) {
    actions.push({ _tag: "RemoveArtifact", key: view.artifact.key })
  }
  if (!progress.documentRemoved && now >= view.expiresAt + graceMs) actions.push({ _tag: "RemoveDocument" })
  return actions
}

/** Nothing is left to do for the job, ever: the sweeper can forget it. */
export const isFullySwept = (view: JobView, progress: SweepProgress): boolean =>
  (view.status === "completed" || view.status === "failed" || view.status === "expired") &&
  progress.documentRemoved &&
  (view.status !== "completed" || view.artifact === null || progress.artifactRemoved)
