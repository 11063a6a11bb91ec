// Tagged domain failures; the gateway maps each one to a /v1 error code in one place.
import { Schema } from "effect"

export class ConcurrencyLimitExceeded extends Schema.TaggedError<ConcurrencyLimitExceeded>()("ConcurrencyLimitExceeded", {
  projectId: Schema.String,
  limit: Schema.Number
}) {}

/** A quota of the project is used up until `resetAt` (epoch ms): a new job is refused until then. */
export class QuotaExceeded extends Schema.TaggedError<QuotaExceeded>()("QuotaExceeded", {
  projectId: Schema.String,
  quota: Schema.Literals(["jobs_per_day", "bytes_per_month"]),
  limit: Schema.Number,
  used: Schema.Number,
  resetAt: Schema.Number,
  /** Whole seconds from the refusal to the reset (Retry-After), at least 1. */
  retryAfterSeconds: Schema.Number
}) {}

export class JobNotFound extends Schema.TaggedError<JobNotFound>()("JobNotFound", {
  jobId: Schema.String
}) {}

export class JobAlreadyExists extends Schema.TaggedError<JobAlreadyExists>()("JobAlreadyExists", {
  jobId: Schema.String
}) {}

/** A command that does not fit the job's current state (e.g. completing a job that never started). */
export class InvalidJobTransition extends Schema.TaggedError<InvalidJobTransition>()("InvalidJobTransition", {
  jobId: Schema.String,
  status: Schema.String,
  command: Schema.String
}) {}

/**
 * A worker's write that does not belong to the job's current run (the fence of at-least-once delivery): its work
 * message is for another try of the job (`other_try`), another message runs this try already (`running`), or a later
 * attempt took the run over after this one's message was redelivered (`superseded`).
 */
export class RunNotCurrent extends Schema.TaggedError<RunNotCurrent>()("RunNotCurrent", {
  jobId: Schema.String,
  reason: Schema.Literals(["other_try", "running", "superseded", "stored"])
}) {}

/**
 * The slot claimed for a job's try was freed before the try was recorded and confirmed (its claimer took longer than
 * the orphan grace): the try is given up, and a client that asked for it is told to try again.
 */
export class SlotLost extends Schema.TaggedError<SlotLost>()("SlotLost", {
  projectId: Schema.String,
  jobId: Schema.String
}) {}

/** Extension: cancel asked of a job that already ended (completed, failed or expired); canceling it twice is not this. */
export class JobAlreadyFinished extends Schema.TaggedError<JobAlreadyFinished>()("JobAlreadyFinished", {
  jobId: Schema.String,
  status: Schema.String
}) {}

/** Extension: stop asked of a job that is not recording a live stream (not live, not started recording, or ended). */
export class JobNotLive extends Schema.TaggedError<JobNotLive>()("JobNotLive", {
  jobId: Schema.String,
  status: Schema.String
}) {}

/**
 * Extension: a retry asked of a job that cannot be queued again: it is not failed (queued, processing, completed), its
 * failure is not retryable (JobFailures.ts), or a client canceled it.
 */
export class JobNotRetryable extends Schema.TaggedError<JobNotRetryable>()("JobNotRetryable", {
  jobId: Schema.String,
  reason: Schema.Literals(["not_failed", "not_retryable", "canceled"]),
  /** The job's status, or its error code when it failed. */
  detail: Schema.String
}) {}

/** Extension: the requested clip section lies outside the media's duration. */
export class SectionOutOfRange extends Schema.TaggedError<SectionOutOfRange>()("SectionOutOfRange", {
  message: Schema.String
}) {}

/** Extension: subtitle languages the media does not offer. */
export class SubtitlesUnavailable extends Schema.TaggedError<SubtitlesUnavailable>()("SubtitlesUnavailable", {
  missing: Schema.Array(Schema.String),
  available: Schema.Array(Schema.String)
}) {}

export class MediaNotFound extends Schema.TaggedError<MediaNotFound>()("MediaNotFound", {
  mediaId: Schema.String
}) {}

export class UnsupportedPlatform extends Schema.TaggedError<UnsupportedPlatform>()("UnsupportedPlatform", {
  url: Schema.String,
  message: Schema.String
}) {}

export class MediaUnavailable extends Schema.TaggedError<MediaUnavailable>()("MediaUnavailable", {
  url: Schema.String,
  message: Schema.String
}) {}

export class UrlNotAllowed extends Schema.TaggedError<UrlNotAllowed>()("UrlNotAllowed", {
  url: Schema.String,
  message: Schema.String
}) {}

export class FormatUnavailable extends Schema.TaggedError<FormatUnavailable>()("FormatUnavailable", {
  format: Schema.String,
  available: Schema.Array(Schema.String)
}) {}

export class ProjectNotFound extends Schema.TaggedError<ProjectNotFound>()("ProjectNotFound", {
  projectId: Schema.String
}) {}

export class ProjectAlreadyExists extends Schema.TaggedError<ProjectAlreadyExists>()("ProjectAlreadyExists", {
  projectId: Schema.String
}) {}

export class ApiKeyNotFound extends Schema.TaggedError<ApiKeyNotFound>()("ApiKeyNotFound", {
  keyId: Schema.String
}) {}

export class ApiKeyAlreadyExists extends Schema.TaggedError<ApiKeyAlreadyExists>()("ApiKeyAlreadyExists", {
  keyId: Schema.String
}) {}

export class UserAlreadyExists extends Schema.TaggedError<UserAlreadyExists>()("UserAlreadyExists", {
  email: Schema.String
}) {}

export class UserNotFound extends Schema.TaggedError<UserNotFound>()("UserNotFound", {
  email: Schema.String
}) {}

/** A dashboard user already created as many projects as they may (DASHBOARD_PROJECTS_PER_USER or their own limit). */
export class ProjectLimitReached extends Schema.TaggedError<ProjectLimitReached>()("ProjectLimitReached", {
  email: Schema.String,
  limit: Schema.Number
}) {}
