// Delivers job.completed / job.failed to each project's webhook endpoint: signed POSTs, retried with backoff through
// JetStream redelivery, every attempt appended to the project's delivery log; and sends one again when asked.
import type { JsMsg } from "@nats-io/jetstream"
import { DeliverPolicy } from "@nats-io/jetstream"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { answerJob } from "@mds/shared/api/JobResponse"
import { JobEvent as JobEventSchema, decodeJobEventJson } from "@mds/shared/domain/job/JobEvent"
import { endsJob, hasEnded, retriesOf } from "@mds/shared/domain/job/JobState"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { foldJobEvents } from "@mds/shared/jobs/JobStates"
import { type WebhookEventType, WebhookRedeliveryRequested } from "@mds/shared/domain/webhook/WebhookEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import {
  ALL_JOBS_SUBJECT,
  ALL_WEBHOOK_REDELIVERIES_SUBJECT,
  JOBS_STREAM,
  jobSubject,
  WEBHOOKS_STREAM
} from "@mds/shared/eventstore/Subjects"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer, type Verdict } from "../consumers/DurableConsumer.ts"
import { ack, deliveryIdOf, makeWebhookSender, type WebhookMessage } from "./WebhookSender.ts"

export const WEBHOOKS_DURABLE = "aggregator-webhooks"
export const WEBHOOK_REDELIVERIES_DURABLE = "aggregator-webhook-redeliveries"

const decodeRedelivery = Schema.decodeUnknownOption(Schema.fromJsonString(WebhookRedeliveryRequested))

/**
 * The webhook event the job's end is, from the job's one state: completed, or failed (a canceled job ends failed, with
 * error.code canceled, and is announced as such); an expired job is announced to nobody.
 */
const webhookEventOf = (job: JobView): WebhookEventType | null =>
  job.status === "completed" ? "job.completed" : job.status === "failed" ? "job.failed" : null

/**
 * What names one end of a job among its ends: a retried job ends once per try (it may fail, be retried and fail again),
 * and each end is its own event with its own delivery id, so a receiver that drops repeated delivery ids drops only
 * repeated attempts of one end. The first try's seed is the job id alone (as before retries existed).
 */
export const jobEndSeed = (jobId: string, state: JobView): string => {
  const retries = retriesOf(state)
  return retries === 0 ? jobId : `${jobId}:retry:${retries}`
}

/** The job's ends in order (one per try that ended), folded from its events. */
const endsOf = (stored: ReadonlyArray<{ readonly event: JobEventSchema; readonly seq: number }>): ReadonlyArray<JobView> => {
  const ends: Array<JobView> = []
  let state: JobView | null = null
  for (const item of stored) {
    const next = foldJobEvents(state, [item])
    if (next !== null && !hasEnded(state) && hasEnded(next)) ends.push(next)
    state = next
  }
  return ends
}

export const WebhookDispatcher = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* EventStore
    const artifacts = yield* ArtifactStore
    const sender = yield* makeWebhookSender
    const { settings } = sender

    /** The job's state as of this event, and whether this very event ended it. */
    const jobAt = Effect.fn("WebhookDispatcher.jobAt")(function* (subject: string, uptoSeq: number) {
      const stored = (yield* store.readSubject(JobEventSchema, subject)).filter((item) => item.seq <= uptoSeq)
      const before = foldJobEvents(null, stored.slice(0, -1))
      const after = foldJobEvents(before, stored.slice(-1))
      return { job: after, endedNow: !hasEnded(before) && hasEnded(after) }
    })

    /** The job's end as the webhook message its type announces, or null when the endpoint did not choose it. */
    const messageOf = Effect.fn("WebhookDispatcher.messageOf")(function* (
      projectId: string,
      jobId: string,
      state: JobView,
      type: WebhookEventType,
      redeliveryOf?: number
    ) {
      const endpoint = yield* sender.endpointFor(projectId, type)
      if (endpoint === null) return null
      const job = yield* answerJob(artifacts, state)
      const message: WebhookMessage = {
        projectId,
        type,
        deliveryId: deliveryIdOf(projectId, jobEndSeed(jobId, state), type),
        jobId,
        subscriptionId: null,
        happenedAt: state.completedAt ?? (yield* Clock.currentTimeMillis),
        data: { job },
        ...(redeliveryOf === undefined ? {} : { redeliveryOf })
      }
      return { endpoint, message }
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
      const found = yield* messageOf(projectId, jobId, state, type)
      return found === null ? ack : yield* sender.send(found.endpoint, found.message, msg.info.deliveryCount)
    })

    /**
     * A redelivery someone asked for: the same event (same delivery id) with the job as it ended then, retried as usual.
     * The end is found by its delivery id among the job's ends, so an earlier try's failure is sent as it was.
     */
    const redeliver = Effect.fn("WebhookDispatcher.redeliver")(function* (msg: JsMsg) {
      const requested = decodeRedelivery(msg.string())
      if (Option.isNone(requested)) return ack
      const { projectId, jobId, eventType, deliveryId, afterAttemptAt } = requested.value
      const ends = endsOf(yield* store.readSubject(JobEventSchema, jobSubject(projectId, jobId)))
      // The job's events outlive its lifetime only by the stream's retention: a job no longer there is not sent.
      const state = ends.find(
        (end) => webhookEventOf(end) === eventType && deliveryIdOf(projectId, jobEndSeed(jobId, end), eventType) === deliveryId
      )
      if (state === undefined) return ack
      const found = yield* messageOf(projectId, jobId, state, eventType, afterAttemptAt)
      return found === null ? ack : yield* sender.send(found.endpoint, found.message, msg.info.deliveryCount)
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
