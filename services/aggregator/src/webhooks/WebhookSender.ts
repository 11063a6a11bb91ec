// One attempt to deliver one webhook event of any kind: the project's endpoint, a signed POST to the address the egress
// guard checked, the attempt in the delivery log, and what follows (acknowledge, or retry after a growing wait).
import { createHash } from "node:crypto"
import { judgeAttempt } from "@mds/shared/domain/webhook/DeliveryPlan"
import { recordDeliveryAttempt } from "@mds/shared/application/webhook/DeliveryFacts"
import { currentWebhook } from "@mds/shared/application/webhook/WebhookCommands"
import type { WebhookEndpoint } from "@mds/shared/domain/webhook/WebhookDecider"
import type { WebhookEventType } from "@mds/shared/domain/webhook/WebhookEvent"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import {
  DELIVERY_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  signatureHeader,
  WEBHOOK_ID_HEADER,
  webhookSecret
} from "@mds/shared/application/webhook/WebhookSignature"
import { Clock, Effect, Redacted } from "effect"
import type { Verdict } from "../consumers/DurableConsumer.ts"
import { postPinned } from "./PinnedPost.ts"
import { WebhookSettings } from "./WebhookSettings.ts"

const ack: Verdict = { _tag: "Ack" }

/** Stable for one event, so receivers can drop repeated deliveries: `seed` names the event (its job, its check). */
export const deliveryIdOf = (projectId: string, seed: string, type: WebhookEventType) =>
  `dlv_${createHash("sha256").update(`${projectId}:${seed}:${type}`).digest("hex").slice(0, 24)}`

/** One event to deliver: what it is, what it is about, when it happened, and its payload's `data`. */
export interface WebhookMessage {
  readonly projectId: string
  readonly type: WebhookEventType
  readonly deliveryId: string
  readonly jobId: string | null
  readonly subscriptionId: string | null
  readonly happenedAt: number
  readonly data: unknown
  /** For a redelivery someone asked for, the time of the attempt it was asked after; absent for the first series. */
  readonly redeliveryOf?: number
}

interface AttemptResult {
  readonly statusCode: number | null
  readonly error: string | null
}

/** The sender, bound to the aggregator's store, egress guard and webhook settings. */
export const makeWebhookSender = Effect.gen(function* () {
  const store = yield* EventStore
  const egress = yield* EgressPolicy
  const settings = yield* WebhookSettings

  /** The project's endpoint if it chose events of `type`, or null: asked before the payload is built. */
  const endpointFor = (projectId: string, type: WebhookEventType) =>
    currentWebhook(projectId).pipe(
      Effect.map(({ state: { endpoint } }) => (endpoint?.events.includes(type) ? endpoint : null)),
      Effect.provideService(EventStore, store)
    )

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

  /**
   * Delivers `message` to `endpoint`; `attempt` is the message's delivery count (retries are redeliveries of the event
   * that caused it). Answers whether the event is done or tried again after a wait.
   */
  const send = Effect.fn("WebhookSender.send")(function* (endpoint: WebhookEndpoint, message: WebhookMessage, attempt: number) {
    const { projectId, type, deliveryId } = message
    const body = JSON.stringify({ id: deliveryId, type, created_at: new Date(message.happenedAt).toISOString(), data: message.data })
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
      v: 2,
      deliveryId,
      projectId,
      webhookId: endpoint.webhookId,
      url: endpoint.url,
      eventType: type,
      jobId: message.jobId,
      subscriptionId: message.subscriptionId,
      attempt,
      outcome: verdict.outcome,
      statusCode: result.statusCode,
      error: result.error,
      durationMs: finished - started,
      at: finished,
      nextAttemptAt: verdict.retryInMs === null ? null : finished + verdict.retryInMs,
      ...(message.redeliveryOf === undefined ? {} : { redeliveryOf: message.redeliveryOf })
    }).pipe(Effect.provideService(EventStore, store))
    yield* Effect.logInfo("webhook attempt").pipe(
      Effect.annotateLogs({
        deliveryId,
        projectId,
        type,
        about: message.jobId ?? message.subscriptionId,
        attempt,
        outcome: verdict.outcome,
        statusCode: result.statusCode
      })
    )
    return verdict.retryInMs === null
      ? ack
      : ({
          _tag: "Nak",
          delayMs: verdict.retryInMs,
          reason: `webhook delivery attempt ${attempt} failed: ${result.error}`
        } satisfies Verdict)
  })

  return { endpointFor, send, settings }
})
