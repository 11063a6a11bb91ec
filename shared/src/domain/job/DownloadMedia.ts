// The command message on the work queue (mds.work.download) that asks an extractor worker to run a queued job.
import { Schema } from "effect"
import { FormatId } from "../media/FormatId.ts"
import { DownloadOptions } from "./DownloadOptions.ts"

export const DownloadMedia = Schema.TaggedStruct("DownloadMedia", {
  v: Schema.Literal(1),
  jobId: Schema.String,
  projectId: Schema.String,
  url: Schema.String,
  mediaId: Schema.NullOr(Schema.String),
  format: FormatId,
  platform: Schema.String,
  /** Extension: the job's clip section and output preset, as queued. */
  options: Schema.optionalKey(DownloadOptions),
  /**
   * Extension: the bytes the project may still download this month when the job was admitted (absent: no byte quota).
   * A download that would go past it fails quota_exceeded and stores nothing.
   */
  quotaBytesLeft: Schema.optionalKey(Schema.Number),
  /** Extension: the try of the job this message is for (absent: its first; n: its n-th automatic or client retry). */
  retry: Schema.optionalKey(Schema.Number)
})
export type DownloadMedia = typeof DownloadMedia.Type
