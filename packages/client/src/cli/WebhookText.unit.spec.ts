// `mds webhooks` text: one row per delivery; no answer reads "none" with its error, a subscription's row names it.
import type { WebhookDelivery } from "@mds/shared/api/WebhookDeliveries"
import { describe, expect, it } from "vitest"
import { deliveriesText } from "./WebhookText.ts"

const delivery = (fields: Partial<WebhookDelivery>): WebhookDelivery => ({
  delivery_id: "dlv_0123456789abcdef01234567",
  event: "job.completed",
  job_id: "job_aaaaaaaaaaaaaaaaaaaaaaaa",
  subscription_id: null,
  url: "https://hooks.example.org/mds",
  attempt: 1,
  outcome: "delivered",
  status_code: 204,
  error: null,
  duration_ms: 12,
  at: "2026-11-20T10:00:00.000Z",
  next_attempt_at: null,
  ...fields
})

const cells = (text: string) =>
  text
    .trimEnd()
    .split("\n")
    .map((line) => line.split(/\s{2,}/))

describe("deliveriesText", () => {
  it("shows an attempt without an answer as status none with its error, and a subscription's delivery by its id", () => {
    const log = [
      delivery({
        delivery_id: "dlv_fedcba9876543210fedcba98",
        event: "subscription.failing",
        job_id: null,
        subscription_id: "sub_aaaaaaaaaaaaaaaaaaaaaaaa",
        at: "2026-11-20T10:05:00.000Z"
      }),
      delivery({
        outcome: "will_retry",
        status_code: null,
        error: "refused: 10.0.0.7 is a private address",
        next_attempt_at: "2026-11-20T10:01:00.000Z"
      })
    ]
    expect(cells(deliveriesText(log)).slice(1)).toEqual([
      [
        "dlv_fedcba9876543210fedcba98",
        "subscription.failing",
        "sub_aaaaaaaaaaaaaaaaaaaaaaaa",
        "delivered",
        "204",
        "1",
        "2026-11-20T10:05:00.000Z",
        "-"
      ],
      [
        "dlv_0123456789abcdef01234567",
        "job.completed",
        "job_aaaaaaaaaaaaaaaaaaaaaaaa",
        "will retry",
        "none",
        "1",
        "2026-11-20T10:00:00.000Z",
        "2026-11-20T10:01:00.000Z",
        "refused: 10.0.0.7 is a private address"
      ]
    ])
  })

  it("says so when there are no deliveries", () => {
    expect(deliveriesText([])).toBe("no webhook deliveries\n")
  })
})
