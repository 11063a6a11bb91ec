// Extension: the /v1 request and answer bodies of subscriptions (follow a playlist, channel or feed; download what is new).
import { Schema } from "effect"
import { downloadExtensions } from "./Requests.ts"

const Seconds = Schema.Int.check(Schema.isGreaterThanOrEqualTo(0))

export const SubscriptionFiltersBody = Schema.Struct({
  title_contains: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))).annotate({
    description: "Only entries whose title contains this text (any case)."
  }),
  min_duration: Schema.optionalKey(Seconds).annotate({ description: "Seconds; entries without a duration are let go." }),
  max_duration: Schema.optionalKey(Seconds).annotate({ description: "Seconds; entries without a duration are let go." }),
  published_after: Schema.optionalKey(Schema.String.annotate({ format: "date-time" })).annotate({
    description: "Entries published before are let go; entries whose date the platform does not give pass."
  })
}).annotate({ identifier: "SubscriptionFilters" })
export type SubscriptionFiltersBody = typeof SubscriptionFiltersBody.Type

export const CreateSubscriptionRequest = Schema.Struct({
  url: Schema.String.annotate({ description: "A playlist, channel or feed URL (it must resolve as a playlist)." }),
  format: Schema.String.check(Schema.isMinLength(1)).annotate({
    description: "video_best, video_<height>p, audio_best, audio_m4a or audio_mp3, for every new entry."
  }),
  check_every: Schema.optionalKey(Schema.Int).annotate({ description: "Seconds between checks: at least 900 (15 minutes); default 3600." }),
  filters: Schema.optionalKey(SubscriptionFiltersBody),
  backfill: Schema.optionalKey(Schema.Int).annotate({
    description: "How many of the newest current entries the first check downloads (0..50); default 0: only what appears later."
  }),
  // The same opt-in fields as POST /media/download, applied to every new entry's job.
  ...downloadExtensions
}).annotate({ identifier: "CreateSubscriptionRequest" })
export type CreateSubscriptionRequest = typeof CreateSubscriptionRequest.Type

export const SubscriptionCheck = Schema.Struct({
  at: Schema.String.annotate({ format: "date-time" }),
  found: Schema.Int.annotate({ description: "Entries the playlist listed." }),
  new: Schema.Int.annotate({ description: "Entries not seen by an earlier check (on the first: the backfill's)." }),
  filtered: Schema.Int.annotate({ description: "New entries the filters let go." }),
  queued: Schema.Int.annotate({ description: "New entries queued (one another subscription of the project queued is not)." })
}).annotate({ identifier: "SubscriptionCheck" })

export const SubscriptionBody = Schema.Struct({
  id: Schema.String,
  url: Schema.String,
  platform: Schema.String,
  format: Schema.String,
  status: Schema.Literals(["active", "paused", "failing"]).annotate({
    description: "failing: the last 3 checks or more failed (last_error says why); it recovers with the next good check."
  }),
  check_every: Schema.Int,
  filters: SubscriptionFiltersBody,
  backfill: Schema.Int,
  created_at: Schema.String.annotate({ format: "date-time" }),
  last_check: Schema.NullOr(SubscriptionCheck).annotate({ description: "The last successful check; null before the first." }),
  next_check_at: Schema.NullOr(Schema.String.annotate({ format: "date-time" })).annotate({ description: "null while paused." }),
  last_error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })).annotate({
    description: "Why the last check failed; null once a check succeeds."
  })
}).annotate({ identifier: "Subscription", description: "Extension: a followed playlist, channel or feed." })
export type SubscriptionBody = typeof SubscriptionBody.Type
