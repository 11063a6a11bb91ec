// Delivers job.completed / job.failed to each project's webhook endpoint: signed POSTs, retried with backoff through
// JetStream redelivery, every attempt appended to the project's delivery log; and sends one again when asked.
import { createHash } from "node:crypto"
import type { JsMsg } from "@nats-io/jetstream"
import { DeliverPolicy } from "@nats-io/jetstream"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { answerJob } from "@mds/shared/api/JobResponse"
import { JobEvent as JobEventSchema, decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { endsJob, hasEnded } from "@mds/shared/domain/job/JobState"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { foldJobEvents } from "@mds/shared/jobs/JobStates"
import { judgeAttempt } from "@mds/shared/domain/webhook/DeliveryPlan"
import { WebhookDecider, type WebhookEndpoint } from "@mds/shared/domain/webhook/WebhookDecider"
import { recordDeliveryAttempt } from "@mds/shared/domain/webhook/DeliveryFacts"
import { WebhookConfigEvent, type WebhookEventType, WebhookRedeliveryRequested } from "@mds/shared/domain/webhook/WebhookEvent"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import {
  ALL_JOBS_SUBJECT,
  ALL_WEBHOOK_REDELIVERIES_SUBJECT,
  JOBS_STREAM,
  jobSubject,
  WEBHOOKS_STREAM,
  webhookConfigSubject
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

/**
 * The webhook event the job's end is, from the job's one state: completed, or failed (a canceled job ends failed, with
 * error.code canceled, and is announced as such); an expired job is announced to nobody.
 */
const webhookEventOf = (job: JobView): WebhookEventType | null =>
  job.status === "completed" ? "job.completed" : job.status === "failed" ? "job.failed" : null

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

    /** The job's state as of this event, and whether this very event ended it. */
    const jobAt = Effect.fn("WebhookDispatcher.jobAt")(function* (subject: string, uptoSeq: number) {
      const stored = (yield* store.readSubject(JobEventSchema, subject)).filter((item) => item.seq <= uptoSeq)
      const before = foldJobEvents(null, stored.slice(0, -1))
      const after = foldJobEvents(before, stored.slice(-1))
      return { job: after, endedNow: !hasEnded(before) && hasEnded(after) }
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

    /** One attempt to deliver a job's end to the project's endpoint: POST, log the attempt, say whether to try again. */
    const attemptDelivery = Effect.fn("WebhookDispatcher.attempt")(function* (options: {
      readonly projectId: string
      readonly jobId: string
      readonly state: JobView
      readonly type: WebhookEventType
      readonly attempt: number
      /** For a redelivery, the time of the attempt it was asked after; absent for the first series. */
      readonly redeliveryOf?: number
    }) {
      const { projectId, jobId, state, type, attempt } = options
      const endpoint = yield* endpointOf(projectId)
      if (endpoint === null || !endpoint.events.includes(type)) return ack
      const job = yield* answerJob(artifacts, state)
      const happened = { at: state.completedAt ?? (yield* Clock.currentTimeMillis) }

      const deliveryId = deliveryIdOf(projectId, jobId, type)
      const body = JSON.stringify({ id: deliveryId, type, created_at: new Date(happened.at).toISOString(), data: { job } })
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
      yield* recordDeliveryAttempt({
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
        ...(options.redeliveryOf === undefined ? {} : { redeliveryOf: options.redeliveryOf })
      }).pipe(Effect.provideService(EventStore, store))
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
      // Only the event that ends a job is announced: most events (progress) are passed over before any read.
      if (Option.isNone(event) || !endsJob(event.value)) return ack
      const [, , projectId, jobId] = msg.subject.split(".")
      if (projectId === undefined || jobId === undefined) return ack
      const { job: state, endedNow } = yield* jobAt(msg.subject, msg.seq)
      const type = state === null || !endedNow ? null : webhookEventOf(state)
      if (state === null || type === null) return ack
      return yield* attemptDelivery({ projectId, jobId, state, type, attempt: msg.info.deliveryCount })
    })

    /** A redelivery someone asked for: the same event (same delivery id) with the job as it ended, retried as usual. */
    const redeliver = Effect.fn("WebhookDispatcher.redeliver")(function* (msg: JsMsg) {
      const requested = decodeRedelivery(msg.string())
      if (Option.isNone(requested)) return ack
      const { projectId, jobId, eventType, afterAttemptAt } = requested.value
      const { job: state } = yield* jobAt(jobSubject(projectId, jobId), Number.MAX_SAFE_INTEGER)
      // The job's events outlive its lifetime only by the stream's retention: a job no longer there is not sent.
      if (state === null || webhookEventOf(state) !== eventType) return ack
      return yield* attemptDelivery({
        projectId,
        jobId,
        state,
        type: eventType,
        attempt: msg.info.deliveryCount,
        redeliveryOf: afterAttemptAt
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
