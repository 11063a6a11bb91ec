// Extension: delivers subscription.entries_queued and subscription.failing to each project's webhook endpoint, like the
// job webhooks: signed POSTs, retried with backoff through JetStream redelivery, every attempt in the delivery log.
import { DeliverPolicy } from "@nats-io/jetstream"
import { toSubscriptionBody } from "@mds/shared/api/SubscriptionView"
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { currentSubscription } from "@mds/shared/application/subscription/SubscriptionCommands"
import { announcementOf, type SubscriptionAnnouncement } from "@mds/shared/domain/subscription/SubscriptionAnnouncement"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { SUBSCRIPTIONS_STREAM, subscriptionSubject } from "@mds/shared/nats/Subjects"
import { Effect, Layer, Option, Schema } from "effect"
import { Done, later, runReactor, type WakeSource } from "../reactors/Reactor.ts"
import { deliveryIdOf, makeWebhookSender, type WebhookMessage } from "./WebhookSender.ts"

export const SUBSCRIPTION_WEBHOOKS_DURABLE = "aggregator-subscription-webhooks"

const decodeEvent = Schema.decodeUnknownOption(Schema.fromJsonString(SubscriptionEvent))

interface SubscriptionKey {
  readonly projectId: string
  readonly subscriptionId: string
}

/** The event announced, the stream sequence it was stored at, and the message's delivery count (the retries). */
interface AnnouncementWake {
  readonly announcement: SubscriptionAnnouncement
  readonly seq: number
  readonly attempt: number
}

/** The payload beside the subscription: the queued entries with their jobs, or why it is failing. */
const dataOf = (announcement: SubscriptionAnnouncement) =>
  announcement.type === "subscription.entries_queued"
    ? {
        batch_id: announcement.batchId,
        entries: announcement.entries.map((entry) => ({
          entry_id: entry.entryId,
          url: entry.url,
          title: entry.title,
          job_id: entryJobId(announcement.batchId, entry.entryId)
        }))
      }
    : { error: announcement.error }

/**
 * A reactor (`reactors/Reactor.ts`) with no reconcile, like the job webhooks: its wake-ups are a durable consumer of
 * the subscription events that announce something (`announcementOf`), each message acknowledged only once its
 * delivery succeeded or was given up. A round sends the subscription as it was right after the event (as
 * GET /subscriptions/{id} would have answered then), read from its one state up to the event's sequence.
 */
export const SubscriptionWebhooks = Layer.effectDiscard(
  Effect.gen(function* () {
    const sender = yield* makeWebhookSender
    const { settings } = sender

    const round = Effect.fn("SubscriptionWebhooks.round")(function* (
      { projectId, subscriptionId }: SubscriptionKey,
      { announcement, seq, attempt }: AnnouncementWake
    ) {
      const endpoint = yield* sender.endpointFor(projectId, announcement.type)
      if (endpoint === null) return Done
      const { state } = yield* currentSubscription(projectId, subscriptionId, { uptoSeq: seq })
      if (state === null) return Done
      const message: WebhookMessage = {
        projectId,
        type: announcement.type,
        deliveryId: deliveryIdOf(projectId, `${subscriptionId}:${announcement.seed}`, announcement.type),
        jobId: null,
        subscriptionId,
        happenedAt: announcement.at,
        data: { subscription: toSubscriptionBody(state), ...dataOf(announcement) }
      }
      const verdict = yield* sender.send(endpoint, message, attempt)
      return verdict._tag === "Nak" ? later(verdict.delayMs, verdict.reason) : Done
    })

    const announced: WakeSource<SubscriptionKey, AnnouncementWake> = {
      stream: SUBSCRIPTIONS_STREAM.name,
      durable: SUBSCRIPTION_WEBHOOKS_DURABLE,
      filterSubject: subscriptionSubject.all,
      lanes: 4,
      ackWaitMs: settings.timeoutMs + 30_000,
      // Created on a running system, it must not call endpoints for every check of the retained history.
      deliverPolicy: DeliverPolicy.New,
      wakes: (msg) => {
        const event = decodeEvent(msg.string())
        // Most events announce nothing; an undecodable one is passed over like them.
        const announcement = Option.isNone(event) ? null : announcementOf(event.value)
        if (announcement === null) return Effect.succeed([])
        const key = subscriptionSubject.parse(msg.subject)
        if (Option.isNone(key)) return Effect.as(stepOverSubject("subscription webhooks", msg.subject), [])
        return Effect.succeed([{ key: key.value, trigger: { announcement, seq: msg.seq, attempt: msg.info.deliveryCount } }])
      }
    }

    yield* runReactor({
      name: "subscription webhooks",
      keyOf: ({ projectId, subscriptionId }: SubscriptionKey) => subscriptionSubject(projectId, subscriptionId),
      round,
      wakeSources: [announced],
      // A failure to read or log is retried like a failed delivery, after a short pause.
      retryMs: 2_000
    })
  })
)
