// The webhook reactors' test stack: a receiver on loopback, the webhook settings (3 attempts 300 ms apart, a 2 s
// timeout), the reactor under test on a throwaway nats-server, and what its specs write and read: a project's webhook
// and its delivery log.
import { WebhookConfigEvent, WebhookDeliveryAttempted, type WebhookEventType } from "@mds/shared/domain/webhook/WebhookEvent"
import { EgressPolicy } from "@mds/shared/egress/EgressPolicy"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { webhookConfigSubject, webhookDeliverySubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import type { NatsClient } from "@mds/shared/nats/NatsClient"
import { webhookSecret } from "@mds/shared/application/webhook/WebhookSignature"
import { ConfigProvider, Effect, Layer, ManagedRuntime } from "effect"
import { TestNats } from "../../../test/int/support/TestNats.ts"
import { startWebhookReceiver, type WebhookReceiver } from "../../../test/support/WebhookReceiver.ts"
import { WebhookSettings } from "../src/webhooks/WebhookSettings.ts"
import { Parking } from "../src/consumers/Parking.ts"

const PEPPER = "webhook-test-pepper"

export interface WebhookStack {
  readonly receiver: WebhookReceiver
  run<A, E>(effect: Effect.Effect<A, E, EventStore | NatsClient>): Promise<A>
  /** Configures the project's webhook (the receiver's URL or another) for `events`; answers its signing secret. */
  configure(projectId: string, url: string, events: ReadonlyArray<WebhookEventType>): Promise<string>
  /** The project's delivery log (WebhookDeliveryAttempted), oldest first. */
  deliveryLog(projectId: string): Promise<ReadonlyArray<typeof WebhookDeliveryAttempted.Type>>
  close(): Promise<void>
}

export interface WebhookStackOptions<E> {
  /** The egress guard the POSTs pass; by default only the receiver, every other name resolving to a private address. */
  readonly egress?: (receiver: WebhookReceiver) => Layer.Layer<EgressPolicy>
  /** The reactor under test, given the webhook settings and the egress guard; the event store and NATS are the stack's. */
  readonly reactor: (
    provided: Layer.Layer<WebhookSettings | EgressPolicy, unknown>
  ) => Layer.Layer<never, E, EventStore | NatsClient | Parking>
}

const onlyTheReceiver = (receiver: WebhookReceiver) =>
  EgressPolicy.layerWith(receiver.hostPort, async () => [{ address: "10.1.2.3", family: 4 as const }])

export const startWebhookStack = async <E>(options: WebhookStackOptions<E>): Promise<WebhookStack> => {
  const receiver = await startWebhookReceiver()
  const settings = WebhookSettings.layer.pipe(
    Layer.provide(
      ConfigProvider.layer(
        ConfigProvider.fromUnknown({
          API_KEY_PEPPER: PEPPER,
          WEBHOOK_MAX_ATTEMPTS: "3",
          WEBHOOK_RETRY_BASE_MS: "300",
          WEBHOOK_TIMEOUT_MS: "2000"
        })
      )
    )
  )
  const egress = (options.egress ?? onlyTheReceiver)(receiver)
  const base = Layer.mergeAll(JetStreamEventStore, Parking.layer).pipe(Layer.provideMerge(TestNats))
  const layer = options.reactor(Layer.mergeAll(settings, egress)).pipe(Layer.provideMerge(base), Layer.orDie)
  const runtime = ManagedRuntime.make(layer)
  try {
    await runtime.runPromise(Effect.void)
  } catch (error) {
    await runtime.dispose()
    await receiver.close()
    throw error
  }
  const T = Date.now()
  const run = <A, E>(effect: Effect.Effect<A, E, EventStore | NatsClient>) => runtime.runPromise(effect)
  return {
    receiver,
    run,
    configure: (projectId, url, events) =>
      run(
        Effect.gen(function* () {
          const store = yield* EventStore
          const webhookId = `whk_${newId("key").slice(4)}`
          yield* store.append(
            WebhookConfigEvent,
            webhookConfigSubject(projectId),
            { _tag: "WebhookConfigured", v: 1, projectId, webhookId, url, events: [...events], at: T },
            { msgId: webhookId }
          )
          return webhookSecret(PEPPER, projectId, webhookId)
        })
      ),
    deliveryLog: (projectId) =>
      run(
        Effect.gen(function* () {
          const store = yield* EventStore
          const stored = yield* store.readSubject(WebhookDeliveryAttempted, webhookDeliverySubject(projectId))
          return stored.map((item) => item.event)
        })
      ),
    close: async () => {
      await runtime.dispose()
      await receiver.close()
    }
  }
}
