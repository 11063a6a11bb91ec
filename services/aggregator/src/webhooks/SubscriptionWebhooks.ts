// Extension: delivers subscription.entries_queued and subscription.failing to each project's webhook endpoint, like the
// job webhooks: signed POSTs, retried with backoff through JetStream redelivery, every attempt in the delivery log.
import { DeliverPolicy, type JsMsg } from "@nats-io/jetstream"
import { toSubscriptionBody } from "@mds/shared/api/SubscriptionView"
import { entryJobId } from "@mds/shared/domain/batch/EntryJobId"
import { foldEvents } from "@mds/shared/domain/Decider"
import { SubscriptionDecider } from "@mds/shared/domain/subscription/SubscriptionDecider"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { SUBSCRIPTIONS_STREAM } from "@mds/shared/eventstore/Subjects"
import { Effect, Layer, Option, Schema } from "effect"
import { type DurableConsumerOptions, ensureDurableConsumer, runDurableConsumer, type Verdict } from "../consumers/DurableConsumer.ts"
import { ack, deliveryIdOf, makeWebhookSender, type WebhookMessage } from "./WebhookSender.ts"

export const SUBSCRIPTION_WEBHOOKS_DURABLE = "aggregator-subscription-webhooks"

const decodeEvent = Schema.decodeUnknownOption(Schema.fromJsonString(SubscriptionEvent))

/** What a subscription event announces, if anything: its type, what names it, when, and the payload beside the subscription. */
const announcedOf = (event: SubscriptionEvent) => {
  switch (event._tag) {
    case "SubscriptionEntriesQueued":
      return {
        type: "subscription.entries_queued",
        // One batch per check: the check's batch names the event.
        seed: event.batchId,
        at: event.at,
        data: {
          batch_id: event.batchId,
          entries: event.entries.map((entry) => ({
            entry_id: entry.entryId,
            url: entry.url,
            title: entry.title,
            job_id: entryJobId(event.batchId, entry.entryId)
          }))
        }
      } as const
    case "SubscriptionFailing":
      // Failing again after a recovery is another event: its time names it.
      return { type: "subscription.failing", seed: `failing@${event.at}`, at: event.at, data: { error: event.error } } as const
    default:
      return null
  }
}

export const SubscriptionWebhooks = Layer.effectDiscard(
  Effect.gen(function* () {
    const store = yield* EventStore
    const sender = yield* makeWebhookSender
    const { settings } = sender

    /** The subscription as it was right after this event (as GET /subscriptions/{id} would have answered then). */
    const subscriptionAt = Effect.fn("SubscriptionWebhooks.subscriptionAt")(function* (subject: string, uptoSeq: number) {
      const stored = (yield* store.readSubject(SubscriptionEvent, subject)).filter((item) => item.seq <= uptoSeq)
      return foldEvents(
        SubscriptionDecider,
        stored.map((item) => item.event)
      )
    })

    const deliver = Effect.fn("SubscriptionWebhooks.deliver")(function* (msg: JsMsg) {
      const decoded = decodeEvent(msg.string())
      const announced = Option.isNone(decoded) ? null : announcedOf(decoded.value)
      const [, , projectId, subscriptionId] = msg.subject.split(".")
      if (announced === null || projectId === undefined || subscriptionId === undefined) return ack
      const endpoint = yield* sender.endpointFor(projectId, announced.type)
      if (endpoint === null) return ack
      const state = yield* subscriptionAt(msg.subject, msg.seq)
      if (state === null) return ack
      const message: WebhookMessage = {
        projectId,
        type: announced.type,
        deliveryId: deliveryIdOf(projectId, `${subscriptionId}:${announced.seed}`, announced.type),
        jobId: null,
        subscriptionId,
        happenedAt: announced.at,
        data: { subscription: toSubscriptionBody(state), ...announced.data }
      }
      return yield* sender.send(endpoint, message, msg.info.deliveryCount)
    })

    const consumer: DurableConsumerOptions = {
      stream: SUBSCRIPTIONS_STREAM.name,
      durable: SUBSCRIPTION_WEBHOOKS_DURABLE,
      filterSubject: SUBSCRIPTIONS_STREAM.subjects[0] ?? "mds.subscription.>",
      lanes: 4,
      ackWaitMs: settings.timeoutMs + 30_000,
      // Created on a running system, it must not call endpoints for every check of the retained history.
      deliverPolicy: DeliverPolicy.New,
      // A failure to read or log is retried like a failed delivery, after a short pause.
      handle: (msg) =>
        deliver(msg).pipe(
          Effect.catchCause((cause) => Effect.succeed<Verdict>({ _tag: "Nak", delayMs: 2_000, reason: String(cause).slice(0, 300) }))
        )
    }
    yield* ensureDurableConsumer(consumer)
    yield* Effect.forkScoped(runDurableConsumer(consumer))
  })
)
