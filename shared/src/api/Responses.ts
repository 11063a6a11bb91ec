// The /v1 response bodies: the gateway builds its answers as these types and the OpenAPI document is generated from them.
import { Schema } from "effect"
import { apiErrorCodes } from "./ErrorCodes.ts"

const IsoDateTime = Schema.String.annotate({ format: "date-time", description: "ISO 8601 UTC with milliseconds." })

export const Health = Schema.Struct({
  status: Schema.Literals(["ok", "degraded"]),
  version: Schema.Literal("v1"),
  followers: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.Literals(["following", "recovering"])).annotate({
      description:
        "Each in-memory view that follows a stream: the gateway's (job_views, keys, platforms) and the aggregator's (aggregator.expiry_jobs, aggregator.expiry_media, aggregator.job_tally; `recovering` if any aggregator's is). `following` while a recent probe showed it caught up; `recovering` while it starts, falls behind or its consumer is being re-created (the gateway's reads then go to the read model and the streams, so answers stay correct, only slower; the aggregator postpones its expiry sweep)."
    })
  ),
  parked_messages: Schema.optionalKey(
    Schema.Record(Schema.String, Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))).annotate({
      description:
        "Messages each aggregator consumer parked after its handler failed on them CONSUMER_PARK_AFTER_FAILURES times (the consumer went on without them), by consumer; {} when none. They wait for an operator: `npm run cli -- parked list|replay|drop` (docs/operations.md). Absent while NATS does not answer."
    })
  ),
  yt_dlp: Schema.optionalKey(
    Schema.Struct({
      choice: Schema.NullOr(Schema.String).annotate({
        description: "The operator's choice (`extractors use`): stable, nightly, a version, or null."
      }),
      extractors: Schema.Array(
        Schema.Struct({
          worker_id: Schema.String,
          version: Schema.String,
          last_change: Schema.Literals(["running", "activated", "rejected"]),
          reason: Schema.NullOr(Schema.String),
          at: IsoDateTime
        })
      )
    }).annotate({ description: "Extension: the yt-dlp release each extractor reported running, fleet-wide (at most 5 s old)." })
  )
}).annotate({ identifier: "Health" })
export type Health = typeof Health.Type

export const Capability = Schema.Literals(["video", "audio", "image", "metadata"])

export const PlatformHealth = Schema.Struct({
  status: Schema.Literals(["ok", "degraded", "paused"]).annotate({
    description:
      "paused while the circuit breaker is open (new requests get 503 platform_paused); degraded below " + "one half recent successes."
  }),
  success_rate: Schema.NullOr(Schema.Number.check(Schema.isBetween({ minimum: 0, maximum: 1 }))).annotate({
    description: "Share of the platform's recent (last hour, last 50) resolves and downloads that succeeded; null without any."
  }),
  sample_size: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  paused_until: Schema.NullOr(IsoDateTime).annotate({ description: "When the pause ends; null when not paused." })
}).annotate({ identifier: "PlatformHealth", description: "Extension: recent extraction health of the platform." })
export type PlatformHealth = typeof PlatformHealth.Type

export const Platform = Schema.Struct({
  id: Schema.String.annotate({ description: "Platform id, as in the platform field of media and jobs." }),
  name: Schema.String,
  capabilities: Schema.Array(Capability),
  source: Schema.String.annotate({ description: "Provenance of the extractor; currently always yt-dlp." }),
  live: Schema.Boolean.annotate({
    description:
      "Extension: whether the service reads this platform's live streams (resolve's live_status; an upcoming stream is " +
      "scheduled, a live one recorded). Beside capabilities, whose values the API fixes."
  }),
  cookies: Schema.Boolean.annotate({
    description:
      "Extension: whether POST /cookies takes this id. Runs look cookies up under the platform of the URL's host (a curated platform, else generic), so a platform derived from an extractor, having no host of its own, takes none: its cookies go under its URLs' host platform."
  }),
  health: PlatformHealth
}).annotate({ identifier: "Platform" })
export type Platform = typeof Platform.Type

export const MediaFormat = Schema.Struct({
  id: Schema.String.annotate({ description: "Format id to send to POST /media/download." }),
  type: Schema.Literals(["video", "audio"]),
  quality: Schema.String,
  container: Schema.String
}).annotate({ identifier: "MediaFormat" })

export const Media = Schema.Struct({
  id: Schema.String.annotate({ description: "med_ + 24 characters; valid for the media lifetime." }),
  platform: Schema.String,
  type: Schema.Literals(["video", "audio", "image", "playlist"]).annotate({
    description: "playlist only when the resolve asked for playlists (extension)."
  }),
  title: Schema.String,
  thumbnail: Schema.String.annotate({ description: "A URL, or an empty string when there is none." }),
  duration: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Whole seconds; 0 when unknown." }),
  author: Schema.Struct({ name: Schema.String, username: Schema.String }),
  formats: Schema.Array(MediaFormat),
  subtitles: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        language: Schema.String.annotate({
          description: "Language code; download it as format subtitles_<language>, or embed it with subtitles: [language]."
        }),
        name: Schema.String,
        automatic: Schema.Boolean.annotate({ description: "true for the platform's automatic captions (speech recognition)." })
      }).annotate({ identifier: "SubtitleTrack" })
    )
  ).annotate({ description: "Extension: the subtitle languages; absent when there are none." }),
  live_status: Schema.Literals(["not_live", "is_live", "is_upcoming", "was_live", "post_live"]).annotate({
    description:
      "Extension: yt-dlp's live_status. is_upcoming: a scheduled stream or premiere that has not begun (a download of it is " +
      "scheduled until it does); is_live: live now (also a live HLS/DASH manifest without an end); was_live/post_live: a " +
      "finished stream; not_live otherwise (and for media resolved before this field existed)."
  }),
  release_at: Schema.optionalKey(IsoDateTime).annotate({
    description:
      "Extension: when an upcoming stream or premiere is announced to begin; absent when it is not upcoming or the platform does not say."
  }),
  entry_count: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))).annotate({
    description: "Extension, playlists: how many entries the playlist has (at most PLAYLIST_MAX_ENTRIES are read)."
  }),
  entries: Schema.optionalKey(
    Schema.Array(
      Schema.Struct({
        id: Schema.String,
        url: Schema.String.annotate({ description: "Download it with POST /media/download {url, format}." }),
        title: Schema.String,
        duration: Schema.NullOr(Schema.Int).annotate({ description: "Whole seconds; null when the playlist does not say." }),
        extractor_key: Schema.NullOr(Schema.String).annotate({
          description:
            "The extractor that reads the entry, as yt-dlp names it (its ie_key, e.g. Youtube; Generic for a feed item with a guid); null when the playlist does not say."
        }),
        extractor_id: Schema.NullOr(Schema.String).annotate({
          description:
            "The entry's id with that extractor; with extractor_key it is the line yt-dlp's --download-archive writes (the key lowercased, a space, the id). null when the playlist does not say."
        }),
        published_at: Schema.NullOr(IsoDateTime).annotate({
          description:
            "When the entry was published; a day without a time counts from its start (UTC). null when the playlist does not say."
        })
      }).annotate({ identifier: "PlaylistEntry" })
    )
  ).annotate({ description: "Extension, playlists: the requested page of entries." }),
  next_offset: Schema.optionalKey(Schema.NullOr(Schema.Int)).annotate({
    description: "Extension, playlists: the offset of the next page; null after the last."
  })
}).annotate({ identifier: "Media" })
export type Media = typeof Media.Type

export const JobAccepted = Schema.Struct({
  job_id: Schema.String,
  status: Schema.Literals(["queued", "scheduled"]).annotate({
    description:
      "Extension: scheduled for a media whose live_status is is_upcoming: the job waits, holding no slot, until the stream begins."
  }),
  starts_at: Schema.optionalKey(IsoDateTime).annotate({
    description:
      "Extension, scheduled jobs: when the stream is announced to begin (the time of the request when the platform does not say)."
  })
}).annotate({ identifier: "JobAccepted" })
export type JobAccepted = typeof JobAccepted.Type

export const JobStatus = Schema.Literals(["scheduled", "queued", "processing", "completed", "failed"]).annotate({
  description: "Extension: `scheduled` is a download of a stream or premiere that has not begun (see starts_at); it holds no slot."
})
export type JobStatus = typeof JobStatus.Type

export const JobResult = Schema.Struct({
  download_url: Schema.String.annotate({ description: "Signed link; no API key needed." }),
  filename: Schema.String,
  mime_type: Schema.String,
  size_bytes: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)),
  expires_at: IsoDateTime
}).annotate({ identifier: "JobResult" })

export const JobError = Schema.Struct({
  code: Schema.String,
  message: Schema.String,
  retryable: Schema.optionalKey(Schema.Boolean).annotate({
    description: "Whether queueing the same download again may succeed (false for removed, private, too long or too large media)."
  })
}).annotate({ identifier: "JobError" })

/** Extension: the opt-in fields the job was queued with, as the request spelled them; absent for a plain download. */
export const JobOptions = Schema.Struct({
  section: Schema.optionalKey(Schema.Struct({ start: Schema.Number, end: Schema.Number, precise: Schema.Boolean })),
  video_codec: Schema.optionalKey(Schema.Literals(["h264", "vp9", "av1", "any"])),
  container: Schema.optionalKey(Schema.Literals(["mp4", "webm", "mkv"])),
  audio_bitrate: Schema.optionalKey(Schema.Number),
  mute: Schema.optionalKey(Schema.Boolean),
  embed_metadata: Schema.optionalKey(Schema.Boolean),
  embed_thumbnail: Schema.optionalKey(Schema.Boolean),
  subtitles: Schema.optionalKey(Schema.Array(Schema.String)),
  max_duration: Schema.optionalKey(Schema.Number),
  destination: Schema.optionalKey(Schema.Struct({ id: Schema.String, path: Schema.String })),
  sidecars: Schema.optionalKey(Schema.Array(Schema.String))
}).annotate({ identifier: "JobOptions", description: "Extension: the clip section and output preset of the job." })

/** Extension: the delivery of a job queued with a destination, from the moment its file was stored. */
export const JobDelivery = Schema.Struct({
  destination_id: Schema.String,
  path: Schema.String.annotate({ description: "Where the file is (or goes) inside the destination: the template rendered." }),
  status: Schema.Literals(["pending", "delivered", "failed", "removed"]).annotate({
    description:
      "pending: stored, being delivered (or waiting for its next attempt); delivered: the job is completed; failed: " +
      "the job failed with the destination's code; removed: retention deleted it from the destination."
  }),
  attempts: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Failed attempts so far." }),
  next_attempt_at: Schema.optionalKey(IsoDateTime),
  error: Schema.optionalKey(Schema.Struct({ code: Schema.String, message: Schema.String })),
  removed_at: Schema.optionalKey(IsoDateTime).annotate({
    description: "When the subscription's retention deleted the file and its sidecars from the destination (status removed)."
  })
}).annotate({ identifier: "JobDelivery" })
export type JobOptions = typeof JobOptions.Type

/** Extension: a live recording, present once the job's run found its media live. */
export const JobRecording = Schema.Struct({
  started_at: IsoDateTime,
  seconds: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Seconds recorded so far (wall clock)." }),
  bytes: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({ description: "Bytes recorded so far." }),
  max_duration: Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)).annotate({
    description: "Seconds after which the recording ends (max_duration within LIVE_MAX_DURATION_SECONDS)."
  }),
  stop_requested: Schema.Boolean.annotate({ description: "A client asked it to stop (POST /jobs/{jobId}/stop)." }),
  ended: Schema.NullOr(Schema.Literals(["stream_ended", "stopped", "max_duration", "size_limit", "worker_lost"])).annotate({
    description:
      "Why the recording ended; null while it records. size_limit: its bytes reached MAX_FILE_SIZE_MB or what the " +
      "project's monthly byte quota left when the job started. worker_lost: its worker was lost and the job completed " +
      "with the parts it had kept (partial)."
  })
}).annotate({
  identifier: "JobRecording",
  description:
    "Extension: the job records a live stream. While it records, status is processing and progress stays 0 (a live " +
    "stream has no size to be a fraction of); seconds and bytes grow instead."
})
export type JobRecording = typeof JobRecording.Type

export const Job = Schema.Struct({
  id: Schema.String,
  status: JobStatus,
  progress: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 100 })).annotate({
    description: "Integer percent; never decreases; 100 when completed."
  }),
  platform: Schema.String,
  requested_format: Schema.String,
  created_at: IsoDateTime,
  started_at: Schema.optionalKey(IsoDateTime),
  completed_at: Schema.optionalKey(IsoDateTime),
  starts_at: Schema.optionalKey(IsoDateTime).annotate({
    description:
      "Extension, jobs of a scheduled stream or premiere: when it is announced to begin (kept once it began); absent for other jobs."
  }),
  result: Schema.optionalKey(JobResult),
  error: Schema.optionalKey(JobError),
  options: Schema.optionalKey(JobOptions),
  retries: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))).annotate({
    description:
      "Extension, present once the job was retried: how many times it was queued again after a retryable failure " +
      "(automatically or by POST /jobs/{jobId}/retry)."
  }),
  attempts: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))).annotate({
    description:
      "Extension, present once the job was retried: the runs started over all its tries (a worker that crashed " +
      "counts a run too), e.g. 3 for a job that failed twice and completed on its second retry."
  }),
  recording: Schema.optionalKey(JobRecording),
  delivery: Schema.optionalKey(JobDelivery),
  partial: Schema.optionalKey(Schema.Literal(true)).annotate({
    description: "Extension, present on a completed job whose file holds less than asked; partial_reason says why."
  }),
  partial_reason: Schema.optionalKey(Schema.Literals(["worker_lost"])).annotate({
    description:
      "Extension: worker_lost: the recording's worker was lost mid-recording; the file joins the parts it had kept " +
      "(what was recorded up to a few seconds before it was lost)."
  })
}).annotate({ identifier: "Job" })
export type Job = typeof Job.Type

export const ErrorCode = Schema.Literals(apiErrorCodes).annotate({ identifier: "ErrorCode" })

/** The error envelope; `codes` narrows the code to those one response can carry. */
export const errorEnvelope = (codes: ReadonlyArray<string> = apiErrorCodes) =>
  Schema.Struct({
    error: Schema.Struct({
      code: codes === apiErrorCodes ? ErrorCode : Schema.Literals(codes),
      message: Schema.String.annotate({ description: "For humans; may change." }),
      request_id: Schema.String.check(Schema.isPattern(/^req_[0-9a-f]{24}$/u)).annotate({
        description: "Equals the X-Request-Id response header."
      }),
      retryable: Schema.optionalKey(Schema.Boolean).annotate({
        description: "Whether the same request may succeed later (limits, unavailable dependencies)."
      }),
      retry_after: Schema.optionalKey(Schema.Int.check(Schema.isGreaterThanOrEqualTo(1))).annotate({
        description: "Seconds to wait before retrying, when known (equals the Retry-After header)."
      })
    })
  })

/** Every success body wraps its payload in data. */
export const envelope = <S extends Schema.Top>(data: S) => Schema.Struct({ data })
