// Extension: the /v1 request and answer bodies of batches (a format for chosen entries of a resolved playlist).
import { Schema } from "effect"
import { ClientId, downloadExtensions, formatField } from "./Requests.ts"

/** The most entries one batch names (a playlist resolve reads at most PLAYLIST_MAX_ENTRIES, default 500). */
export const MAX_BATCH_ENTRIES = 1000

export const CreateBatchRequest = Schema.Struct({
  media_id: ClientId.annotate({ description: "data.id of a resolve that answered type playlist." }),
  format: formatField("video_best, video_<height>p, audio_best, audio_m4a or audio_mp3."),
  entries: Schema.optionalKey(Schema.Array(ClientId).check(Schema.isMinLength(1), Schema.isMaxLength(MAX_BATCH_ENTRIES))).annotate({
    description: `Entry ids (entries[].id of the resolve) in the order to download them, 1-${MAX_BATCH_ENTRIES}; default: every entry.`
  }),
  // The same opt-in fields as POST /media/download, applied to every entry's job.
  ...downloadExtensions
}).annotate({ identifier: "CreateBatchRequest" })
export type CreateBatchRequest = typeof CreateBatchRequest.Type

export const BatchEntryStatus = Schema.Literals(["pending", "queued", "completed", "failed"])

export const Batch = Schema.Struct({
  id: Schema.String,
  status: Schema.Literals(["running", "completed", "canceled"]),
  media_id: Schema.String,
  format: Schema.String,
  created_at: Schema.String.annotate({ format: "date-time" }),
  expires_at: Schema.String.annotate({ format: "date-time", description: "No entry is started after this." }),
  progress: Schema.Struct({
    total: Schema.Int,
    pending: Schema.Int,
    queued: Schema.Int,
    completed: Schema.Int,
    failed: Schema.Int
  }),
  entries: Schema.Array(
    Schema.Struct({
      id: Schema.String,
      title: Schema.String,
      url: Schema.String,
      status: BatchEntryStatus.annotate({ description: "queued: its job is queued or processing (see GET /jobs/{job_id})." }),
      job_id: Schema.optionalKey(Schema.String),
      error: Schema.optionalKey(
        Schema.Struct({ code: Schema.Literals(["expired"]), message: Schema.String }).annotate({
          description: "Why a failed entry without a job failed: expired, the batch ended before the entry could start."
        })
      )
    })
  )
}).annotate({ identifier: "Batch", description: "Extension: a batch and each entry's job." })
export type Batch = typeof Batch.Type
