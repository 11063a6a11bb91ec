// Every subject with the Effect schema of its messages, rendered as JSON Schema into docs/events.md (checked by a test).
import { Schema } from "effect"
import { KeyEvent, KeyUsed, ProjectEvent, UserEvent } from "../domain/account/AccountEvent.ts"
import { CookieJarEvent } from "../domain/cookies/CookieJarEvent.ts"
import { AdmissionEvent } from "../domain/admission/AdmissionEvent.ts"
import { DownloadMedia } from "../domain/job/DownloadMedia.ts"
import { JobEvent } from "../domain/job/JobEvent.ts"
import { MediaEvent } from "../domain/media/MediaEvent.ts"
import { ResolveReply, ResolveRequest } from "../domain/media/ResolveRpc.ts"
import { IdempotencyEvent } from "../domain/idempotency/IdempotencyEvent.ts"
import { ArchiveEvent } from "../domain/archive/ArchiveEvent.ts"
import { BatchEvent } from "../domain/batch/BatchEvent.ts"
import { SubscriptionEvent } from "../domain/subscription/SubscriptionEvent.ts"
import { ExtractorCatalogPublished } from "../domain/platform/CatalogEvent.ts"
import { PlatformHealthEvent } from "../domain/platform/PlatformHealthEvent.ts"
import { YtDlpReleaseChosen, YtDlpWorkerEvent } from "../domain/release/YtDlpReleaseEvent.ts"
import { WebhookConfigEvent, WebhookDeliveryAttempted, WebhookRedeliveryRequested } from "../domain/webhook/WebhookEvent.ts"
import {
  ACCOUNTS_STREAM,
  ARCHIVE_STREAM,
  SUBSCRIPTIONS_STREAM,
  COOKIES_STREAM,
  BATCHES_STREAM,
  ADMISSION_STREAM,
  CATALOG_STREAM,
  IDEMPOTENCY_STREAM,
  KEY_USAGE_STREAM,
  PLATFORMS_STREAM,
  WEBHOOKS_STREAM,
  DOWNLOAD_WORK_SUBJECT,
  EXTRACTOR_CATALOG_SUBJECT,
  JOBS_STREAM,
  MEDIA_STREAM,
  RESOLVE_RPC_SUBJECT,
  WORK_STREAM,
  YT_DLP_CHOICE_SUBJECT
} from "./Subjects.ts"

export interface CatalogEntry {
  readonly subject: string
  readonly stream: string
  readonly title: string
  readonly schema: Schema.Top
}

/** The same schemas the services decode with: the documentation cannot describe a message they would refuse. */
export const EVENT_CATALOG: ReadonlyArray<CatalogEntry> = [
  { subject: "mds.job.<projectId>.<jobId>", stream: JOBS_STREAM.name, title: "JobEvent", schema: JobEvent },
  { subject: "mds.admission.<projectId>", stream: ADMISSION_STREAM.name, title: "AdmissionEvent", schema: AdmissionEvent },
  { subject: "mds.media.<mediaId>", stream: MEDIA_STREAM.name, title: "MediaEvent", schema: MediaEvent },
  { subject: "mds.account.project.<projectId>", stream: ACCOUNTS_STREAM.name, title: "ProjectEvent", schema: ProjectEvent },
  { subject: "mds.account.key.<keyId>", stream: ACCOUNTS_STREAM.name, title: "KeyEvent", schema: KeyEvent },
  { subject: "mds.account.user.<userId>", stream: ACCOUNTS_STREAM.name, title: "UserEvent", schema: UserEvent },
  { subject: "mds.keyuse.<keyId>", stream: KEY_USAGE_STREAM.name, title: "KeyUsed", schema: KeyUsed },
  {
    subject: EXTRACTOR_CATALOG_SUBJECT,
    stream: CATALOG_STREAM.name,
    title: "ExtractorCatalogPublished",
    schema: ExtractorCatalogPublished
  },
  { subject: YT_DLP_CHOICE_SUBJECT, stream: CATALOG_STREAM.name, title: "YtDlpReleaseChosen (extension)", schema: YtDlpReleaseChosen },
  {
    subject: "mds.catalog.ytdlp.worker.<workerId>",
    stream: CATALOG_STREAM.name,
    title: "YtDlpWorkerEvent (extension)",
    schema: YtDlpWorkerEvent
  },
  {
    subject: "mds.cookies.<projectId>.<platform>",
    stream: COOKIES_STREAM.name,
    title: "CookieJarEvent (extension)",
    schema: CookieJarEvent
  },
  {
    subject: "mds.idempotency.<projectId>.<keyHash>",
    stream: IDEMPOTENCY_STREAM.name,
    title: "IdempotencyEvent (extension)",
    schema: IdempotencyEvent
  },
  {
    subject: "mds.webhook.config.<projectId>",
    stream: WEBHOOKS_STREAM.name,
    title: "WebhookConfigEvent (extension)",
    schema: WebhookConfigEvent
  },
  {
    subject: "mds.webhook.delivery.<projectId>",
    stream: WEBHOOKS_STREAM.name,
    title: "WebhookDeliveryAttempted (extension)",
    schema: WebhookDeliveryAttempted
  },
  {
    subject: "mds.webhook.redeliver.<projectId>",
    stream: WEBHOOKS_STREAM.name,
    title: "WebhookRedeliveryRequested (extension)",
    schema: WebhookRedeliveryRequested
  },
  {
    subject: "mds.platform.health.<platformId>",
    stream: PLATFORMS_STREAM.name,
    title: "PlatformHealthEvent (extension)",
    schema: PlatformHealthEvent
  },
  { subject: "mds.batch.<projectId>.<batchId>", stream: BATCHES_STREAM.name, title: "BatchEvent (extension)", schema: BatchEvent },
  {
    subject: "mds.subscription.<projectId>.<subscriptionId>",
    stream: SUBSCRIPTIONS_STREAM.name,
    title: "SubscriptionEvent (extension)",
    schema: SubscriptionEvent
  },
  { subject: "mds.archive.<projectId>.<keyHash>", stream: ARCHIVE_STREAM.name, title: "ArchiveEvent (extension)", schema: ArchiveEvent },
  { subject: DOWNLOAD_WORK_SUBJECT, stream: WORK_STREAM.name, title: "DownloadMedia (command)", schema: DownloadMedia },
  {
    subject: `${RESOLVE_RPC_SUBJECT} (request)`,
    stream: "none (core NATS request/reply)",
    title: "ResolveRequest",
    schema: ResolveRequest
  },
  { subject: `${RESOLVE_RPC_SUBJECT} (reply)`, stream: "none (core NATS request/reply)", title: "ResolveReply", schema: ResolveReply }
]

export const CATALOG_START =
  "<!-- event-catalog:start (generated by `npm run docs:events` from shared/src/eventstore/EventCatalog.ts; do not edit) -->"
export const CATALOG_END = "<!-- event-catalog:end -->"

/** A standalone JSON Schema (draft 2020-12) of the message's JSON encoding, usable by any validator. */
export const jsonSchemaOf = (schema: Schema.Top): Record<string, unknown> => {
  const document = Schema.toJsonSchemaDocument(schema)
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    ...document.schema,
    ...(Object.keys(document.definitions).length > 0 ? { $defs: document.definitions } : {})
  }
}

/** The generated block: a table of subjects, then each subject's JSON Schema. */
export const renderEventCatalog = (catalog: ReadonlyArray<CatalogEntry> = EVENT_CATALOG): string => {
  const tagsOf = (entry: CatalogEntry) => {
    const schema = jsonSchemaOf(entry.schema)
    const variants = (schema["anyOf"] as Array<Record<string, unknown>> | undefined) ?? [schema]
    return variants
      .map((variant) => {
        const tag = (variant["properties"] as Record<string, { enum?: Array<string> }> | undefined)?.["_tag"]?.enum?.[0]
        return tag === undefined ? entry.title : `\`${tag}\``
      })
      .join(", ")
  }
  const lines = [
    CATALOG_START,
    "",
    "| Subject | Stream | Messages |",
    "|---|---|---|",
    ...catalog.map((entry) => `| \`${entry.subject}\` | ${entry.stream} | ${tagsOf(entry)} |`),
    ""
  ]
  for (const entry of catalog) {
    lines.push(
      `<details><summary><code>${entry.subject.replaceAll("<", "&lt;").replaceAll(">", "&gt;")}</code>: ${entry.title}</summary>`,
      "",
      "```json",
      JSON.stringify(jsonSchemaOf(entry.schema), null, 2),
      "```",
      "",
      "</details>",
      ""
    )
  }
  lines.push(CATALOG_END)
  return lines.join("\n")
}

/** docs/events.md with its generated block replaced by a fresh one. */
export const withEventCatalog = (markdown: string, block: string = renderEventCatalog()): string => {
  const start = markdown.indexOf(CATALOG_START)
  const end = markdown.indexOf(CATALOG_END)
  if (start < 0 || end < start) throw new Error("docs/events.md has no event-catalog markers")
  return markdown.slice(0, start) + block + markdown.slice(end + CATALOG_END.length)
}
