// Extension: the /v1 request and answer bodies of subscriptions (follow a playlist, channel or feed; download what is new).
import { Schema } from "effect"
import { MAX_BACKFILL, MAX_CHECK_EVERY_MS, MIN_CHECK_EVERY_MS } from "../domain/subscription/SubscriptionDecider.ts"
import { beyondTheDocument } from "./BeyondTheDocument.ts"
import { downloadExtensions, formatField, HttpUrlString, MAX_SECTION_SECONDS } from "./Requests.ts"
import { MAX_KEEP_DAYS, MAX_KEEP_LAST } from "../domain/subscription/SubscriptionRetention.ts"

const MIN_CHECK_EVERY_SECONDS = MIN_CHECK_EVERY_MS / 1000
const MAX_CHECK_EVERY_SECONDS = MAX_CHECK_EVERY_MS / 1000

const DurationSeconds = Schema.Int.check(
  Schema.isBetween(
    { minimum: 0, maximum: MAX_SECTION_SECONDS },
    { message: `must be a whole number of seconds from 0 to ${MAX_SECTION_SECONDS}` }
  )
)

/** YYYY-MM-DD, or an RFC 3339 date-time (`2026-11-20T08:00:00Z`, `...+02:00`, with fractions of a second). */
const PUBLISHED_AFTER_PATTERN =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](?:[01]\d|2[0-3]):[0-5]\d:(?:[0-5]\d|60)(?:\.\d{1,9})?(?:[Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d))?$/u

/** Whether the day part names a real calendar day (2026-02-30 does not; Date.parse would roll it over to March). */
const isCalendarDay = (text: string): boolean => {
  const day = text.slice(0, 10)
  const ms = Date.parse(`${day}T00:00:00Z`)
  return Number.isFinite(ms) && new Date(ms).toISOString().slice(0, 10) === day
}

export const PublishedAfter = Schema.String.check(
  Schema.isPattern(PUBLISHED_AFTER_PATTERN, { message: "must be a day (YYYY-MM-DD) or an RFC 3339 date-time" }),
  beyondTheDocument((text: string) => (isCalendarDay(text) ? undefined : "must name a real calendar day"))
)

/** Epoch ms of a published_after the schema accepted (a day starts at 00:00 UTC). */
export const publishedAfterMs = (text: string): number => Date.parse(text.length === 10 ? `${text}T00:00:00Z` : text)

export const SubscriptionFiltersBody = Schema.Struct({
  title_contains: Schema.optionalKey(Schema.String.check(Schema.isMinLength(1), Schema.isMaxLength(200))).annotate({
    description: "Only entries whose title contains this text (any case), 1-200 characters."
  }),
  min_duration: Schema.optionalKey(DurationSeconds).annotate({
    description: `Seconds (0-${MAX_SECTION_SECONDS}), at most max_duration; entries without a duration are let go.`
  }),
  max_duration: Schema.optionalKey(DurationSeconds).annotate({
    description: `Seconds (0-${MAX_SECTION_SECONDS}), at least min_duration; entries without a duration are let go.`
  }),
  published_after: Schema.optionalKey(PublishedAfter).annotate({
    description:
      "A day (YYYY-MM-DD, from its start in UTC) or an RFC 3339 date-time. Entries published before are let go; " +
      "entries whose date the platform does not give pass."
  })
})
  .check(
    beyondTheDocument((filters: { readonly min_duration?: number; readonly max_duration?: number }) =>
      filters.min_duration === undefined || filters.max_duration === undefined || filters.min_duration <= filters.max_duration
        ? undefined
        : { path: ["min_duration"], issue: `must be at most max_duration (${filters.max_duration})` }
    )
  )
  .annotate({ identifier: "SubscriptionFilters" })
export type SubscriptionFiltersBody = typeof SubscriptionFiltersBody.Type

/** Extension: which delivered entries a subscription's destination keeps; the others' files are removed. */
export const RetentionBody = Schema.Union([
  Schema.Struct({
    keep_last: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_KEEP_LAST })).annotate({
      description: `Keep the newest N delivered entries (1..${MAX_KEEP_LAST}); older ones are removed from the destination.`
    })
  }),
  Schema.Struct({
    keep_days: Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: MAX_KEEP_DAYS })).annotate({
      description: `Keep entries delivered within the last D days (1..${MAX_KEEP_DAYS}); older ones are removed.`
    })
  })
]).annotate({
  identifier: "SubscriptionRetention",
  description:
    "Only with a destination. The service removes only the files it delivered for this subscription (the media and its " +
    "own sidecars; tvshow.nfo and poster.jpg stay), records each removal on the job (delivery.status removed)."
})

export const CreateSubscriptionRequest = Schema.Struct({
  url: HttpUrlString.annotate({ description: "A playlist, channel or feed URL (it must resolve as a playlist), at most 2048 characters." }),
  format: formatField("video_best, video_<height>p, audio_best, audio_m4a or audio_mp3, for every new entry."),
  check_every: Schema.optionalKey(
    Schema.Int.check(
      Schema.isBetween(
        { minimum: MIN_CHECK_EVERY_SECONDS, maximum: MAX_CHECK_EVERY_SECONDS },
        {
          message: `must be a whole number of seconds from ${MIN_CHECK_EVERY_SECONDS} (15 minutes) to ${MAX_CHECK_EVERY_SECONDS} (30 days)`
        }
      )
    )
  ).annotate({ description: "Seconds between checks: 900 (15 minutes) to 2592000 (30 days); default 3600." }),
  filters: Schema.optionalKey(SubscriptionFiltersBody),
  backfill: Schema.optionalKey(
    Schema.Int.check(
      Schema.isBetween({ minimum: 0, maximum: MAX_BACKFILL }, { message: `must be a whole number from 0 to ${MAX_BACKFILL}` })
    )
  ).annotate({
    description: "How many of the newest current entries the first check downloads (0..50); default 0: only what appears later."
  }),
  retention: Schema.optionalKey(RetentionBody),
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

const Reason = Schema.Struct({ code: Schema.String, message: Schema.String })

export const SubscriptionEntries = Schema.Struct({
  in_flight: Schema.Int.annotate({ description: "Entries queued in a batch whose download has not ended." }),
  waiting: Schema.Int.annotate({
    description:
      "Entries a later check queues (again): held back by the project's quota, a failed first try, or a batch that ended before they started."
  }),
  downloaded: Schema.Int.annotate({ description: "Entries downloaded since the subscription was made." }),
  given_up: Schema.Int.annotate({ description: "Entries given up since the subscription was made (given_up_entries: the last 20, why)." })
}).annotate({ identifier: "SubscriptionEntries" })

export const PendingEntry = Schema.Struct({
  entry_id: Schema.String,
  title: Schema.String,
  url: Schema.String,
  batch_id: Schema.NullOr(Schema.String).annotate({ description: "The batch it is queued in; null while it waits for a check." }),
  failed_tries: Schema.Int.annotate({ description: "Tries whose download failed (an entry gets 2)." }),
  waiting_for: Schema.NullOr(Reason).annotate({
    description: "Why it waits (e.g. quota_exceeded, not_started, download_failed); null while queued."
  })
}).annotate({ identifier: "SubscriptionPendingEntry" })

export const GivenUpEntry = Schema.Struct({
  entry_id: Schema.String,
  title: Schema.String,
  url: Schema.String,
  reason: Reason.annotate({
    description: "The job's error (a second failed try, or one that a try would repeat), canceled, too_many_waiting or outcome_unknown."
  }),
  at: Schema.String.annotate({ format: "date-time" })
}).annotate({ identifier: "SubscriptionGivenUpEntry" })

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
  retention: Schema.optionalKey(RetentionBody),
  created_at: Schema.String.annotate({ format: "date-time" }),
  last_check: Schema.NullOr(SubscriptionCheck).annotate({ description: "The last successful check; null before the first." }),
  next_check_at: Schema.NullOr(Schema.String.annotate({ format: "date-time" })).annotate({ description: "null while paused." }),
  last_error: Schema.NullOr(Schema.Struct({ code: Schema.String, message: Schema.String })).annotate({
    description: "Why the last check failed; null once a check succeeds."
  }),
  entries: SubscriptionEntries,
  pending_entries: Schema.Array(PendingEntry).annotate({
    description: "The entries not done yet (in flight or waiting), the oldest first; at most 100 shown."
  }),
  given_up_entries: Schema.Array(GivenUpEntry).annotate({ description: "The last 20 entries given up, the newest first." })
}).annotate({ identifier: "Subscription", description: "Extension: a followed playlist, channel or feed." })
export type SubscriptionBody = typeof SubscriptionBody.Type
