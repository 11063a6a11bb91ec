// Where a job's media comes from and which batch entry it downloads: shared by the job's events and its document.
import { Schema } from "effect"

/** Where the job's media comes from: always a URL, plus the media id when queued after a resolve. */
export const JobSource = Schema.Struct({
  url: Schema.String,
  mediaId: Schema.NullOr(Schema.String)
})
export type JobSource = typeof JobSource.Type

/** Extension: the batch entry a job downloads, when a batch queued it. */
export const JobBatchEntry = Schema.Struct({ batchId: Schema.String, entryId: Schema.String })
export type JobBatchEntry = typeof JobBatchEntry.Type
