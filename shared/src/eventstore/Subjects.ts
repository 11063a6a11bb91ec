// Stream and subject names: the contract internal services subscribe to (see docs/events.md).

export interface StreamDef {
  readonly name: string
  readonly subjects: ReadonlyArray<string>
}

export const JOBS_STREAM: StreamDef = { name: "MDS_JOBS", subjects: ["mds.job.>"] }
export const ADMISSION_STREAM: StreamDef = { name: "MDS_ADMISSION", subjects: ["mds.admission.>"] }
export const MEDIA_STREAM: StreamDef = { name: "MDS_MEDIA", subjects: ["mds.media.>"] }
export const ACCOUNTS_STREAM: StreamDef = { name: "MDS_ACCOUNTS", subjects: ["mds.account.>"] }
/** Facts about the extractor fleet, e.g. the installed yt-dlp's extractor list. */
export const CATALOG_STREAM: StreamDef = { name: "MDS_CATALOG", subjects: ["mds.catalog.>"] }
/** The latest KeyUsed per key (one message per subject): last-used times, kept apart from the accounts history. */
export const KEY_USAGE_STREAM: StreamDef = { name: "MDS_KEY_USAGE", subjects: ["mds.keyuse.>"] }
/** Extension: Idempotency-Key claims of POST /media/download, one subject per project and key. */
export const IDEMPOTENCY_STREAM: StreamDef = { name: "MDS_IDEMPOTENCY", subjects: ["mds.idempotency.>"] }
/** Extension: projects' webhook endpoints and delivery logs. */
export const WEBHOOKS_STREAM: StreamDef = { name: "MDS_WEBHOOKS", subjects: ["mds.webhook.>"] }
/** Extension: per-platform health and circuit breaker (each event carries the whole state). */
export const PLATFORMS_STREAM: StreamDef = { name: "MDS_PLATFORMS", subjects: ["mds.platform.>"] }
/** Extension: batches (a format for chosen playlist entries), one subject per batch. */
export const BATCHES_STREAM: StreamDef = { name: "MDS_BATCHES", subjects: ["mds.batch.>"] }
/** Extension: metadata of projects' stored cookie files (the files themselves are in the cookie vault, encrypted). */
export const COOKIES_STREAM: StreamDef = { name: "MDS_COOKIES", subjects: ["mds.cookies.>"] }
/** Extension: subscriptions (follow a playlist, channel or feed), one subject per subscription. */
export const SUBSCRIPTIONS_STREAM: StreamDef = { name: "MDS_SUBSCRIPTIONS", subjects: ["mds.subscription.>"] }
/** Extension: each project's download archive, one subject per entry ever queued by a subscription. */
export const ARCHIVE_STREAM: StreamDef = { name: "MDS_ARCHIVE", subjects: ["mds.archive.>"] }
/** Work queue of download commands; each message is taken by one extractor worker. */
export const WORK_STREAM: StreamDef = { name: "MDS_WORK", subjects: ["mds.work.>"] }

export const jobSubject = (projectId: string, jobId: string) => `mds.job.${projectId}.${jobId}`
export const projectJobsSubject = (projectId: string) => `mds.job.${projectId}.*`
export const ALL_JOBS_SUBJECT = "mds.job.>"
export const batchSubject = (projectId: string, batchId: string) => `mds.batch.${projectId}.${batchId}`
export const projectBatchesSubject = (projectId: string) => `mds.batch.${projectId}.*`
export const admissionSubject = (projectId: string) => `mds.admission.${projectId}`
export const mediaSubject = (mediaId: string) => `mds.media.${mediaId}`
export const projectSubject = (projectId: string) => `mds.account.project.${projectId}`
export const ALL_PROJECTS_SUBJECT = "mds.account.project.>"
export const keySubject = (keyId: string) => `mds.account.key.${keyId}`
export const ALL_KEYS_SUBJECT = "mds.account.key.>"
export const userSubject = (userId: string) => `mds.account.user.${userId}`
export const ALL_ACCOUNT_SUBJECTS = "mds.account.>"
export const keyUsageSubject = (keyId: string) => `mds.keyuse.${keyId}`
export const EXTRACTOR_CATALOG_SUBJECT = "mds.catalog.extractors"
/** The operator's choice of yt-dlp release for the extractor fleet (YtDlpReleaseChosen). */
export const YT_DLP_CHOICE_SUBJECT = "mds.catalog.ytdlp.choice"
/** What one extractor did with the choice (YtDlpWorkerEvent); a subject each, as the catalog keeps few per subject. */
export const ytDlpWorkerSubject = (workerId: string) => `mds.catalog.ytdlp.worker.${workerId.replace(/[^A-Za-z0-9_-]/g, "_")}`
/** Every extractor's reports: the fleet's running versions. */
export const ALL_YT_DLP_WORKERS_SUBJECT = "mds.catalog.ytdlp.worker.>"
export const DOWNLOAD_WORK_SUBJECT = "mds.work.download"
export const platformHealthSubject = (platformId: string) => `mds.platform.health.${platformId}`
export const ALL_PLATFORM_HEALTH_SUBJECT = "mds.platform.health.>"
export const webhookConfigSubject = (projectId: string) => `mds.webhook.config.${projectId}`
export const webhookDeliverySubject = (projectId: string) => `mds.webhook.delivery.${projectId}`
/** Extension: requests to send a delivery again (WebhookRedeliveryRequested). */
export const webhookRedeliverSubject = (projectId: string) => `mds.webhook.redeliver.${projectId}`
export const ALL_WEBHOOK_REDELIVERIES_SUBJECT = "mds.webhook.redeliver.>"
/** `keyHash` is a digest of the client's key: keys may hold characters that subjects cannot. */
export const idempotencySubject = (projectId: string, keyHash: string) => `mds.idempotency.${projectId}.${keyHash}`

export const subscriptionSubject = (projectId: string, subscriptionId: string) => `mds.subscription.${projectId}.${subscriptionId}`
/** `keyHash` is a digest of the archive key (it holds spaces and URLs, which subjects cannot). */
export const archiveSubject = (projectId: string, keyHash: string) => `mds.archive.${projectId}.${keyHash}`

export const cookieJarSubject = (projectId: string, platform: string) => `mds.cookies.${projectId}.${platform}`
export const projectCookieJarsSubject = (projectId: string) => `mds.cookies.${projectId}.*`
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
  ARCHIVE_STREAM
]

export const streamOf = (subject: string): StreamDef => {
  const stream = STREAMS.find((def) => def.subjects.some((pattern) => subject.startsWith(pattern.slice(0, -1))))
  if (stream === undefined) throw new Error(`no stream holds subject ${subject}`)
  return stream
}
