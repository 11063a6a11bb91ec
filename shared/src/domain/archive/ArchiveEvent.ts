// Extension: a project's download archive (as yt-dlp's --download-archive): one subject per entry ever queued by a subscription.
import { Schema } from "effect"

/** The entry was queued once for the project, by this claim (a subscription's check); nothing queues it again. */
export const ArchiveEntryRecorded = Schema.TaggedStruct("ArchiveEntryRecorded", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  archiveKey: Schema.String,
  subscriptionId: Schema.String,
  /** The claim's id (the subscription and the due time of its check): a retried check finds its own claim. */
  claimId: Schema.String,
  at: Schema.Number
})
export type ArchiveEntryRecorded = typeof ArchiveEntryRecorded.Type

export const ArchiveEvent = Schema.Union([ArchiveEntryRecorded])
export type ArchiveEvent = typeof ArchiveEvent.Type
