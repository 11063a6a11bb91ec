// `mds usage` and `mds webhooks [redeliver]` against a real gateway on a socket: the text tables, --json as the API's
// data, exit codes (0 done, 1 the service refused, 2 wrong usage) and the redelivery the command asks for.
import { jobUsage } from "../readmodel/UsageReadModel.contract.ts"
import {
  WebhookDeliveryAttempted,
  type WebhookDeliveryAttemptedV2,
  WebhookRedeliveryRequested
} from "@mds/shared/domain/webhook/WebhookEvent"
import { deliveryAttempt } from "../../support/WebhookAttempts.ts"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { webhookDeliverySubject, webhookRedeliverSubject } from "@mds/shared/nats/Subjects"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { runMds } from "../../support/MdsCli.ts"
import { setProjectQuota } from "../../../services/gateway/src/accounts/AccountCommands.ts"
import { type Harness, startHarness } from "../../../services/gateway/test/GatewayHarness.ts"

let h: Harness
let address: string
let key: string
let projectId: string

beforeAll(async () => {
  h = await startHarness()
  address = await h.gateway.app.listen({ host: "127.0.0.1", port: 0 })
  ;({ key, projectId } = await h.provisionKey())
}, 60_000)
afterAll(async () => {
  await h?.close()
})

/** One invocation of `mds`, in process, with its output captured. */
const mds = (...argv: ReadonlyArray<string>) => runMds(address, key, argv)

const recordUsage = (fields: Parameters<typeof jobUsage>[1]) =>
  h.gateway.run(Effect.flatMap(UsageReadModel, (store) => store.record(jobUsage(projectId, fields))))

describe("mds usage", () => {
  it("prints a table per day with a total, the top errors and the quotas; --json prints the API's data", async () => {
    await recordUsage({ day: "2026-11-20", status: "completed", bytes: 3 * 1024 * 1024 })
    await recordUsage({ day: "2026-11-20", status: "failed", errorCode: "download_failed" })
    await recordUsage({ day: "2026-11-22", status: "canceled" })
    await recordUsage({ day: "2026-11-22", status: "processing" })
    await h.gateway.run(setProjectQuota(projectId, { jobsPerDay: 500, bytesPerMonth: 50 * 1024 ** 3 }))

    const text = await mds("usage", "--from", "2026-11-20", "--to", "2026-11-22")
    expect(text.code, text.stderr).toBe(0)
    const lines = text.stdout.split("\n")
    expect(lines[0]).toBe("2026-11-20 to 2026-11-22 (UTC; jobs by the day they were queued)")
    expect(lines[1]).toMatch(/^day\s+jobs\s+completed\s+failed\s+canceled\s+expired\s+running\s+downloaded$/)
    expect(lines.slice(2, 6).map((line) => line.split(/\s{2,}/))).toEqual([
      ["2026-11-20", "2", "1", "1", "0", "0", "0", "3.0 MiB"],
      ["2026-11-21", "0", "0", "0", "0", "0", "0", "0 B"],
      ["2026-11-22", "2", "0", "0", "1", "0", "1", "0 B"],
      ["total", "4", "1", "1", "1", "0", "1", "3.0 MiB"]
    ])
    expect(text.stdout).toMatch(/^download_failed\s+1\s+job_[a-z2-7]{24}$/m)
    expect(text.stdout).toMatch(/^jobs per day\s+0\s+500\s+500\s+\d{4}-\d{2}-\d{2}T00:00:00\.000Z$/m)
    expect(text.stdout).toMatch(/^bytes per month\s+0 B\s+50\.0 GiB\s+50\.0 GiB\s+\d{4}-\d{2}-01T00:00:00\.000Z$/m)

    const json = await mds("usage", "--from", "2026-11-20", "--to", "2026-11-22", "--json")
    expect(json.code).toBe(0)
    const api = await h.gateway.app.inject({ method: "GET", url: "/v1/usage?from=2026-11-20&to=2026-11-22", headers: { "x-api-key": key } })
    expect(JSON.parse(json.stdout)).toEqual(api.json().data)
  })

  it("a date not written YYYY-MM-DD is wrong usage (2); one the service refuses is its error with the request id (1)", async () => {
    const malformed = await mds("usage", "--from", "20261120")
    expect(malformed.code).toBe(2)
    expect(malformed.stderr).toContain("--from must be a UTC day written YYYY-MM-DD (got 20261120)")
    const refused = await mds("usage", "--from", "2026-11-02", "--to", "2026-11-01")
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^mds: invalid_date_range: from: .* \(request req_[0-9a-z]+\)\n$/)
    expect(refused.stdout).toBe("")
    expect((await mds("usage", "extra")).code).toBe(2)
  })
})

describe("mds webhooks", () => {
  const GAVE_UP = "dlv_0123456789abcdef01234567"
  const RETRYING = "dlv_89abcdef0123456789abcdef"
  const JOB = "job_aaaaaaaaaaaaaaaaaaaaaaaa"

  const attempt = (fields: Partial<WebhookDeliveryAttemptedV2>) =>
    deliveryAttempt({
      deliveryId: GAVE_UP,
      projectId,
      jobId: JOB,
      statusCode: null,
      error: "timeout after 10000 ms",
      durationMs: 10_000,
      at: Date.parse("2026-11-20T10:00:00.000Z"),
      nextAttemptAt: Date.parse("2026-11-20T10:00:10.000Z"),
      ...fields
    })

  it("lists each delivery's latest attempt with its status code, attempts and next retry, then redelivers one", async () => {
    const log = [
      attempt({}),
      attempt({
        attempt: 2,
        outcome: "failed",
        statusCode: 500,
        error: "HTTP 500",
        at: Date.parse("2026-11-20T10:00:10.000Z"),
        nextAttemptAt: null
      }),
      attempt({
        deliveryId: RETRYING,
        eventType: "job.completed",
        jobId: "job_bbbbbbbbbbbbbbbbbbbbbbbb",
        statusCode: 503,
        error: "HTTP 503",
        at: Date.parse("2099-01-01T00:00:00.000Z"),
        nextAttemptAt: Date.parse("2099-01-01T00:01:00.000Z")
      })
    ]
    await h.gateway.run(
      Effect.flatMap(EventStore, (store) =>
        Effect.forEach(log, (event, i) =>
          store.append(WebhookDeliveryAttempted, webhookDeliverySubject(projectId), event, { msgId: `mds-${i}` })
        )
      )
    )

    const listed = await mds("webhooks")
    expect(listed.code, listed.stderr).toBe(0)
    expect(listed.stdout.split("\n").map((line) => line.split(/\s{2,}/))).toEqual([
      ["delivery", "event", "about", "outcome", "status", "attempts", "last attempt", "next retry", "error"],
      [
        RETRYING,
        "job.completed",
        "job_bbbbbbbbbbbbbbbbbbbbbbbb",
        "will retry",
        "503",
        "1",
        "2099-01-01T00:00:00.000Z",
        "2099-01-01T00:01:00.000Z"
      ],
      [GAVE_UP, "job.failed", JOB, "failed", "500", "2", "2026-11-20T10:00:10.000Z", "-"],
      [""]
    ])
    const json = await mds("webhooks", "--json")
    expect(JSON.parse(json.stdout).map((d: { delivery_id: string; attempt: number }) => `${d.delivery_id}:${d.attempt}`)).toEqual([
      `${RETRYING}:1`,
      `${GAVE_UP}:2`,
      `${GAVE_UP}:1`
    ])

    const asked = await mds("webhooks", "redeliver", GAVE_UP)
    expect(asked.code, asked.stderr).toBe(0)
    expect(asked.stdout).toBe(`${GAVE_UP}: job.failed of ${JOB} will be sent again in a moment (mds webhooks shows its attempts)\n`)
    const requests = await h.gateway.run(
      Effect.flatMap(EventStore, (store) => store.readSubject(WebhookRedeliveryRequested, webhookRedeliverSubject(projectId)))
    )
    expect(requests.map((r) => r.event)).toEqual([expect.objectContaining({ deliveryId: GAVE_UP, jobId: JOB, eventType: "job.failed" })])

    const pending = await mds("webhooks", "redeliver", RETRYING)
    expect(pending.code).toBe(1)
    expect(pending.stderr).toMatch(/^mds: delivery_pending: Delivery dlv_89abcdef0123456789abcdef is still being retried/)
    const unknown = await mds("webhooks", "redeliver", "dlv_ffffffffffffffffffffffff")
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^mds: delivery_not_found: /)
  })

  it("wrong arguments are usage errors (2) naming the command's usage", async () => {
    for (const argv of [
      ["webhooks", "redeliver"],
      ["webhooks", "resend", GAVE_UP],
      ["webhooks", "redeliver", GAVE_UP, "x"]
    ]) {
      const result = await mds(...argv)
      expect(result.code, argv.join(" ")).toBe(2)
      expect(result.stderr).toContain("usage: mds webhooks [redeliver DELIVERY_ID]")
    }
  })
})
