// Stream and subject names: the contract internal services subscribe to (see docs/events.md). Each kind of subject is
// defined once here, with its builder, its parser and its filters (SubjectKind.ts, which also states the one rule for
// a malformed subject).
import { subjectKind } from "./SubjectKind.ts"

export interface StreamDef {
  readonly name: string
  readonly subjects: ReadonlyArray<string>
  /** The filter of every subject the stream holds: `mds.account.>`. */
  readonly all: string
}

const stream = (name: string, prefix: string): StreamDef => ({ name, subjects: [`${prefix}.>`], all: `${prefix}.>` })

export const JOBS_STREAM: StreamDef = stream("MDS_JOBS", "mds.job")
export const ADMISSION_STREAM: StreamDef = stream("MDS_ADMISSION", "mds.admission")
export const MEDIA_STREAM: StreamDef = stream("MDS_MEDIA", "mds.media")
export const ACCOUNTS_STREAM: StreamDef = stream("MDS_ACCOUNTS", "mds.account")
/** Facts about the extractor fleet, e.g. the installed yt-dlp's extractor list. */
export const CATALOG_STREAM: StreamDef = stream("MDS_CATALOG", "mds.catalog")
/** The latest KeyUsed per key (one message per subject): last-used times, kept apart from the accounts history. */
export const KEY_USAGE_STREAM: StreamDef = stream("MDS_KEY_USAGE", "mds.keyuse")
/** Extension: Idempotency-Key claims of POST /media/download, one subject per project and key. */
export const IDEMPOTENCY_STREAM: StreamDef = stream("MDS_IDEMPOTENCY", "mds.idempotency")
/** Extension: projects' webhook endpoints and delivery logs. */
export const WEBHOOKS_STREAM: StreamDef = stream("MDS_WEBHOOKS", "mds.webhook")
/** Extension: per-platform health and circuit breaker (each event carries the whole state). */
export const PLATFORMS_STREAM: StreamDef = stream("MDS_PLATFORMS", "mds.platform")
/** Extension: batches (a format for chosen playlist entries), one subject per batch. */
export const BATCHES_STREAM: StreamDef = stream("MDS_BATCHES", "mds.batch")
/** Extension: metadata of projects' stored cookie files (the files themselves are in the cookie vault, encrypted). */
export const COOKIES_STREAM: StreamDef = stream("MDS_COOKIES", "mds.cookies")
/** Extension: subscriptions (follow a playlist, channel or feed), one subject per subscription. */
export const SUBSCRIPTIONS_STREAM: StreamDef = stream("MDS_SUBSCRIPTIONS", "mds.subscription")
/** Extension: each project's download archive, one subject per entry ever queued by a subscription. */
export const ARCHIVE_STREAM: StreamDef = stream("MDS_ARCHIVE", "mds.archive")
/** Extension: projects' destinations (where files are delivered), one subject per destination; kept until removed and after. */
export const DESTINATIONS_STREAM: StreamDef = stream("MDS_DESTINATIONS", "mds.destination")
/** Work queue of download commands; each message is taken by one extractor worker. */
export const WORK_STREAM: StreamDef = stream("MDS_WORK", "mds.work")
/** Messages a shared consumer could not handle, set aside so it goes on, a subject per consumer (docs/operations.md). */
export const PARKED_STREAM: StreamDef = stream("MDS_PARKED", "mds.parked")
/** An operator's request to hand a parked message to its consumer again: one at a time per parked message. */
export const PARKED_REPLAYS_STREAM: StreamDef = stream("MDS_PARKED_REPLAYS", "mds.unpark")

/** A job's events. */
export const jobSubject = subjectKind("mds.job", ["projectId", "jobId"])
export const batchSubject = subjectKind("mds.batch", ["projectId", "batchId"])
/** A project's slots and quota usage (each event carries the whole state). */
export const admissionSubject = subjectKind("mds.admission", ["projectId"])
export const mediaSubject = subjectKind("mds.media", ["mediaId"])
export const projectSubject = subjectKind("mds.account.project", ["projectId"])
export const keySubject = subjectKind("mds.account.key", ["keyId"])
export const userSubject = subjectKind("mds.account.user", ["userId"])
export const keyUsageSubject = subjectKind("mds.keyuse", ["keyId"])
export const EXTRACTOR_CATALOG_SUBJECT = "mds.catalog.extractors"
/** The operator's choice of yt-dlp release for the extractor fleet (YtDlpReleaseChosen). */
export const YT_DLP_CHOICE_SUBJECT = "mds.catalog.ytdlp.choice"
/** What one extractor did with the choice (YtDlpWorkerEvent); a subject each, as the catalog keeps few per subject. */
export const ytDlpWorkerSubject = subjectKind("mds.catalog.ytdlp.worker", ["workerId"], {
  encode: (workerId) => workerId.replace(/[^A-Za-z0-9_-]/g, "_")
})
/** Work messages sent before each job had a subject of its own; still consumed, never written. */
export const DOWNLOAD_WORK_SUBJECT = "mds.work.download"
/**
 * A job's work messages (the work stream keeps one until a worker acknowledges it): whether a job's hand-off is still
 * waiting is a read of the subject's last message.
 */
export const downloadWorkSubject = subjectKind("mds.work.download", ["projectId", "jobId"])
export const platformHealthSubject = subjectKind("mds.platform.health", ["platformId"])
export const webhookConfigSubject = subjectKind("mds.webhook.config", ["projectId"])
export const webhookDeliverySubject = subjectKind("mds.webhook.delivery", ["projectId"])
/** Extension: requests to send a delivery again (WebhookRedeliveryRequested). */
export const webhookRedeliverSubject = subjectKind("mds.webhook.redeliver", ["projectId"])
/** `keyHash` is a digest of the client's key: keys may hold characters that subjects cannot. */
export const idempotencySubject = subjectKind("mds.idempotency", ["projectId", "keyHash"])

export const subscriptionSubject = subjectKind("mds.subscription", ["projectId", "subscriptionId"])
/** `keyHash` is a digest of the archive key (it holds spaces and URLs, which subjects cannot). */
export const archiveSubject = subjectKind("mds.archive", ["projectId", "keyHash"])

export const cookieJarSubject = subjectKind("mds.cookies", ["projectId", "platform"])
/** Extension: one destination of a project (DestinationEvent); `.within(projectId)` is the project's every destination. */
export const destinationSubject = subjectKind("mds.destination", ["projectId", "destinationId"])

/** A consumer's parked messages (durable names hold no `.`). */
export const parkedSubject = subjectKind("mds.parked", ["consumer"])
/** The replay request of one parked message, by its id (its sequence in MDS_PARKED). */
export const parkedReplaySubject = subjectKind("mds.unpark", ["consumer", "parkedId"])

/** Core NATS request/reply subject every process with followers answers (no queue group) with their states. */
export const FOLLOWER_STATES_RPC_SUBJECT = "mds.rpc.followers"
/** Core NATS request/reply subject on which extractor workers (queue group "extractor") resolve URLs. */
export const RESOLVE_RPC_SUBJECT = "mds.rpc.media.resolve"

const STREAMS = [
  JOBS_STREAM,
  ADMISSION_STREAM,
  MEDIA_STREAM,
  ACCOUNTS_STREAM,
  KEY_USAGE_STREAM,
  CATALOG_STREAM,
  WORK_STREAM,
  IDEMPOTENCY_STREAM,
  WEBHOOKS_STREAM,
  PLATFORMS_STREAM,
  COOKIES_STREAM,
  BATCHES_STREAM,
  SUBSCRIPTIONS_STREAM,
  ARCHIVE_STREAM,
  DESTINATIONS_STREAM
]

export const streamOf = (subject: string): StreamDef => {
  const holder = STREAMS.find((def) => def.subjects.some((pattern) => subject.startsWith(pattern.slice(0, -1))))
  if (holder === undefined) throw new Error(`no stream holds subject ${subject}`)
  return holder
}
