// Specifications of a project's webhook endpoint and of what follows a delivery attempt.
import { describe, expect, it } from "vitest"
import { DeciderSpecification } from "../DeciderSpecification.ts"
import { judgeAttempt, retryDelayAfter } from "./DeliveryPlan.ts"
import { WebhookDecider } from "./WebhookDecider.ts"
import type { WebhookConfigEvent } from "./WebhookEvent.ts"

const given = DeciderSpecification.for(WebhookDecider)
const configured = (webhookId: string, url: string, at = 1): WebhookConfigEvent => ({
  _tag: "WebhookConfigured",
  v: 1,
  projectId: "prj_a",
  webhookId,
  url,
  events: ["job.completed", "job.failed"],
  at
})

describe("WebhookDecider", () => {
  it("configures an endpoint", () =>
    given([])
      .when({
        _tag: "ConfigureWebhook",
        projectId: "prj_a",
        webhookId: "whk_1",
        url: "https://example.com/hook",
        events: ["job.completed", "job.failed"],
        now: 1
      })
      .then([configured("whk_1", "https://example.com/hook")]))

  it("a new configuration replaces the old one", () =>
    given([configured("whk_1", "https://a.example/hook")])
      .when({
        _tag: "ConfigureWebhook",
        projectId: "prj_a",
        webhookId: "whk_2",
        url: "https://b.example/hook",
        events: ["job.completed", "job.failed"],
        now: 2
      })
      .then([configured("whk_2", "https://b.example/hook", 2)]))

  it("removes a configured endpoint, and refuses to remove none", () => {
    given([configured("whk_1", "https://a.example/hook")])
      .when({ _tag: "RemoveWebhook", projectId: "prj_a", now: 3 })
      .then([{ _tag: "WebhookRemoved", v: 1, projectId: "prj_a", at: 3 }])
    given([]).when({ _tag: "RemoveWebhook", projectId: "prj_a", now: 3 }).thenRejects("WebhookNotConfigured")
  })
})

describe("judgeAttempt", () => {
  const schedule = { maxAttempts: 4, baseDelayMs: 1_000, factor: 3, maxDelayMs: 5_000 }

  it("a 2xx answer is delivered; anything else is retried with growing waits, capped", () => {
    expect(judgeAttempt(schedule, 1, 204)).toEqual({ outcome: "delivered", retryInMs: null })
    expect(judgeAttempt(schedule, 1, 500)).toEqual({ outcome: "will_retry", retryInMs: 1_000 })
    expect(judgeAttempt(schedule, 2, 302)).toEqual({ outcome: "will_retry", retryInMs: 3_000 })
    expect(judgeAttempt(schedule, 3, null)).toEqual({ outcome: "will_retry", retryInMs: 5_000 })
    expect(retryDelayAfter(schedule, 3)).toBe(5_000)
  })

  it("gives up after the last attempt", () => {
    expect(judgeAttempt(schedule, 4, 503)).toEqual({ outcome: "failed", retryInMs: null })
    expect(judgeAttempt(schedule, 4, 200)).toEqual({ outcome: "delivered", retryInMs: null })
  })
})
