// Webhook delivery settings from the environment: retry schedule, per-attempt timeout, the secret endpoint secrets derive from.
import { defaultRetrySchedule, type RetrySchedule } from "@mds/shared/domain/webhook/DeliveryPlan"
import { WebhookServerSecret } from "@mds/shared/application/webhook/WebhookSignature"
import { Config, Context, Effect, Layer, type Redacted } from "effect"

export class WebhookSettings extends Context.Service<
  WebhookSettings,
  {
    readonly schedule: RetrySchedule
    readonly timeoutMs: number
    /** The admin CLI derives the same endpoint secrets from it when it shows them. */
    readonly serverSecret: Redacted.Redacted<string>
  }
>()("mds/aggregator/WebhookSettings") {
  static readonly layer = Layer.effect(
    WebhookSettings,
    Effect.gen(function* () {
      const maxAttempts = yield* Config.Int("WEBHOOK_MAX_ATTEMPTS").pipe(Config.withDefault(defaultRetrySchedule.maxAttempts))
      const baseDelayMs = yield* Config.Int("WEBHOOK_RETRY_BASE_MS").pipe(Config.withDefault(defaultRetrySchedule.baseDelayMs))
      const timeoutMs = yield* Config.Int("WEBHOOK_TIMEOUT_MS").pipe(Config.withDefault(10_000))
      const serverSecret = yield* WebhookServerSecret
      return WebhookSettings.of({
        schedule: { ...defaultRetrySchedule, maxAttempts, baseDelayMs },
        timeoutMs,
        serverSecret
      })
    })
  )
}
