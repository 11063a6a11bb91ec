// Delivers job.completed / job.failed to each project's webhook endpoint: signed POSTs, retried with backoff through
// JetStream redelivery, every attempt appended to the project's delivery log; and sends one again when asked.
import { createHash } from "node:crypto"
import type { JsMsg } from "@nats-io/jetstream"
import { DeliverPolicy } from "@nats-io/jetstream"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { answerJob } from "@mds/shared/api/JobResponse"
import { type JobEvent, JobEvent as JobEventSchema, decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { evolveJobView, type JobView } from "@mds/shared/domain/job/JobView"
import { judgeAttempt } from "@mds/shared/domain/webhook/DeliveryPlan"
import { WebhookDecider, type WebhookEndpoint } from "@mds/shared/domain/webhook/WebhookDecider"
import {
  WebhookConfigEvent,
  WebhookDeliveryAttempted,
  type WebhookEventType,
  WebhookRedeliveryRequested
} from "@mds/shared/domain/webhook/WebhookEvent"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import {
  ALL_JOBS_SUBJECT,
  ALL_WEBHOOK_REDELIVERIES_SUBJECT,
  JOBS_STREAM,
  jobSubject,
  WEBHOOKS_STREAM,
  webhookConfigSubject,
  webhookDeliverySubject
} from "@mds/shared/eventstore/Subjects"
import {
  DELIVERY_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  WEBHOOK_ID_HEADER,
  webhookSecret
} from "@mds/shared/webhooks/WebhookSignature"
import { Clock, Effect, Layer, Option, Redacted, Schema } from "effect"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer, type Verdict } from "../consumers/DurableConsumer.ts"
import { postPinned } from "./PinnedPost.ts"
import { WebhookSettings } from "./WebhookSettings.ts"

export const WEBHOOKS_DURABLE = "aggregator-webhooks"
export const WEBHOOK_REDELIVERIES_DURABLE = "aggregator-webhook-redeliveries"

const decodeRedelivery = Schema.decodeUnknownOption(Schema.fromJsonString(WebhookRedeliveryRequested))

const ack: Verdict = { _tag: "Ack" }

/** The webhook event a job event is, with its time; null for the job events nobody is told about. */
const webhookEventOf = (event: JobEvent): { readonly type: WebhookEventType; readonly at: number } | null => {
  switch (event._tag) {
    case "JobCompleted":
      return { type: "job.completed", at: event.at }
    case "JobFailed":
    // A canceled job ends failed (error.code canceled), and is announced as such.
    case "JobCanceled":
      return { type: "job.failed", at: event.at }
    default:
      return null
  }
}

/** Stable for one event of one job, so receivers can drop repeated deliveries. */
const deliveryIdOf = (projectId: string, jobId: string, type: WebhookEventType) =>
  `dlv_${createHash("sha256").update(`${projectId}:${jobId}:${type}`).digest("hex").slice(0, 24)}`

interface AttemptResult {
  readonly statusCode: number | null
  readonly error: string | null
}

export const WebhookDispatcher = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* EventStore
    const artifacts = yield* ArtifactStore
    const egress = yield* EgressPolicy
    const settings = yield* WebhookSettings

    const endpointOf = (projectId: string) =>
      Effect.map(store.readLast(WebhookConfigEvent, webhookConfigSubject(projectId)), (last) =>
        Option.match(last, {
          onNone: () => null,
          onSome: (stored) => WebhookDecider.evolve(WebhookDecider.initialState(), stored.event).endpoint
        })
      )

    /** The job as of this event, in the /v1 shape GET /jobs answers with. */
    const jobAt = Effect.fn("WebhookDispatcher.jobAt")(function* (subject: string, uptoSeq: number) {
      let doc: JobView | null = null
      for (const stored of yield* store.readSubject(JobEventSchema, subject)) {
        if (stored.seq > uptoSeq) break
        doc = evolveJobView(doc, stored.event, stored.seq)
      }
      if (doc === null) return null
      return yield* answerJob(artifacts, doc)
    })

    const post = (endpoint: WebhookEndpoint, headers: Record<string, string>, body: string) =>
      Effect.gen(function* () {
        const url = new URL(endpoint.url)
        // The guard resolves the name once and the POST connects to exactly that address (PinnedPost).
        const target = yield* egress.resolveUrl(url).pipe(
          Effect.map((address) => ({ address, refused: null })),
          Effect.catch((error) => Effect.succeed({ address: null, refused: error.message }))
        )
        if (target.address === null) return { statusCode: null, error: `refused: ${target.refused}` } satisfies AttemptResult
        const address = target.address
        return yield* Effect.promise(async (): Promise<AttemptResult> => {
          try {
            const response = await postPinned(url, address, headers, body, settings.timeoutMs)
            const ok = response.statusCode >= 200 && response.statusCode < 300
            return { statusCode: response.statusCode, error: ok ? null : `HTTP ${response.statusCode}` }
          } catch (error) {
            const reason =
              error instanceof Error && error.name === "TimeoutError"
                ? `no answer within ${settings.timeoutMs} ms`
                : String(error instanceof Error ? (error.cause ?? error.message) : error)
            return { statusCode: null, error: reason.slice(0, 300) }
          }
        })
      })

    /** One attempt to deliver one event of a job: POST, log the attempt, and say whether to try again (Nak). */
    const attemptDelivery = Effect.fn("WebhookDispatcher.attempt")(function* (options: {
      readonly projectId: string
      readonly jobId: string
      readonly type: WebhookEventType
      readonly happenedAt: number
      /** The job's subject and the sequence whose state the payload shows. */
      readonly jobSeq: number
      readonly attempt: number
      /** For a redelivery, the attempt time it was asked after (its attempts' message ids); null for the first series. */
      readonly redeliveryOf: number | null
    }) {
      const { projectId, jobId, type, attempt } = options
      const endpoint = yield* endpointOf(projectId)
      if (endpoint === null || !endpoint.events.includes(type)) return ack
      const job = yield* jobAt(jobSubject(projectId, jobId), options.jobSeq)
      if (job === null) return ack

      const deliveryId = deliveryIdOf(projectId, jobId, type)
      const body = JSON.stringify({ id: deliveryId, type, created_at: new Date(options.happenedAt).toISOString(), data: { job } })
      const secret = webhookSecret(Redacted.value(settings.serverSecret), projectId, endpoint.webhookId)
      const started = yield* Clock.currentTimeMillis
      const result = yield* post(
        endpoint,
        {
          "content-type": "application/json",
          "user-agent": "mds-webhooks/1",
          [SIGNATURE_HEADER]: signatureHeader(secret, Math.floor(started / 1000), body),
          [WEBHOOK_ID_HEADER]: endpoint.webhookId,
          [DELIVERY_ID_HEADER]: deliveryId,
          [EVENT_TYPE_HEADER]: type
        },
        body
      )
      const finished = yield* Clock.currentTimeMillis
      const verdict = judgeAttempt(settings.schedule, attempt, result.statusCode)
      yield* store.append(
        WebhookDeliveryAttempted,
        webhookDeliverySubject(projectId),
        {
          _tag: "WebhookDeliveryAttempted",
          v: 1,
          deliveryId,
          projectId,
          webhookId: endpoint.webhookId,
          url: endpoint.url,
          eventType: type,
          jobId,
          attempt,
          outcome: verdict.outcome,
          statusCode: result.statusCode,
          error: result.error,
          durationMs: finished - started,
          at: finished,
          nextAttemptAt: verdict.retryInMs === null ? null : finished + verdict.retryInMs,
          ...(options.redeliveryOf === null ? {} : { redelivery: true })
        },
        { msgId: `${deliveryId}:${options.redeliveryOf === null ? "" : `r${options.redeliveryOf}:`}${attempt}` }
      )
      yield* Effect.logInfo("webhook attempt").pipe(
        Effect.annotateLogs({ deliveryId, projectId, jobId, attempt, outcome: verdict.outcome, statusCode: result.statusCode })
      )
      return verdict.retryInMs === null
        ? ack
        : ({
            _tag: "Nak",
            delayMs: verdict.retryInMs,
            reason: `webhook delivery attempt ${attempt} failed: ${result.error}`
          } satisfies Verdict)
    })

    const deliver = Effect.fn("WebhookDispatcher.deliver")(function* (msg: JsMsg) {
      const event = decodeJobEventJson(msg.string())
      if (Option.isNone(event)) return ack
      const happened = webhookEventOf(event.value)
      if (happened === null) return ack
      const [, , projectId, jobId] = msg.subject.split(".")
      if (projectId === undefined || jobId === undefined) return ack
      return yield* attemptDelivery({
        projectId,
        jobId,
        type: happened.type,
        happenedAt: happened.at,
        jobSeq: msg.seq,
        attempt: msg.info.deliveryCount,
        redeliveryOf: null
      })
    })

    /** A redelivery someone asked for: the same event (same delivery id) with the job as it ended, retried as usual. */
    const redeliver = Effect.fn("WebhookDispatcher.redeliver")(function* (msg: JsMsg) {
      const requested = decodeRedelivery(msg.string())
      if (Option.isNone(requested)) return ack
      const { projectId, jobId, eventType } = requested.value
      return yield* attemptDelivery({
        projectId,
        jobId,
        type: eventType,
        happenedAt: requested.value.at,
        jobSeq: Number.MAX_SAFE_INTEGER,
        attempt: msg.info.deliveryCount,
        redeliveryOf: requested.value.afterAttemptAt
      })
    })

    // A failure to read or log is retried like a failed delivery, after a short pause.
    const orRetry = (verdict: Effect.Effect<Verdict, unknown>) =>
      verdict.pipe(
        Effect.catchCause((cause) => Effect.succeed<Verdict>({ _tag: "Nak", delayMs: 2_000, reason: String(cause).slice(0, 300) }))
      )
    const consumers: ReadonlyArray<DurableConsumerOptions> = [
      {
        stream: JOBS_STREAM.name,
        durable: WEBHOOKS_DURABLE,
        filterSubject: ALL_JOBS_SUBJECT,
        lanes: 8,
        ackWaitMs: settings.timeoutMs + 30_000,
        // Created on a running system, it must not call endpoints for every job of the retained history.
        deliverPolicy: DeliverPolicy.New,
        handle: (msg) => orRetry(deliver(msg))
      },
      {
        stream: WEBHOOKS_STREAM.name,
        durable: WEBHOOK_REDELIVERIES_DURABLE,
        filterSubject: ALL_WEBHOOK_REDELIVERIES_SUBJECT,
        lanes: 4,
        ackWaitMs: settings.timeoutMs + 30_000,
        deliverPolicy: DeliverPolicy.New,
        handle: (msg) => orRetry(redeliver(msg))
      }
    ]
    for (const consumer of consumers) {
      yield* ensureDurableConsumer(consumer)
      yield* Effect.forkScoped(runDurableConsumer(consumer))
    }
  })
)
