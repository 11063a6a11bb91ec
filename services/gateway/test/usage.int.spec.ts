// GET /v1/usage: the project's usage per day from the usage read model, its quotas now, and dates refused in the envelope.
import { setProjectQuota } from "../src/accounts/AccountCommands.ts"
import { releaseSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { utcDay } from "@mds/shared/domain/admission/Quota"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { jobUsage } from "../../../test/int/readmodel/UsageReadModel.contract.ts"
import { useHarness } from "./GatewayHarness.ts"

const file = useHarness()

const usage = (key: string, query = "") =>
  file.h.gateway.app.inject({ method: "GET", url: `/v1/usage${query}`, headers: { "x-api-key": key } })

describe("GET /v1/usage", () => {
  it("sums the project's jobs per day, by status, error code and platform, with the bytes and the quotas", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const record = (fields: Parameters<typeof jobUsage>[1]) =>
      file.h.gateway.run(Effect.flatMap(UsageReadModel, (store) => store.record(jobUsage(projectId, fields))))
    await record({ day: "2026-11-20", status: "completed", bytes: 2_000 })
    await record({ day: "2026-11-20", status: "failed", errorCode: "download_failed", platform: "generic" })
    await record({ day: "2026-11-22", status: "canceled" })
    await record({ day: "2026-11-23", status: "completed", bytes: 5 })
    await file.h.gateway.run(setProjectQuota(projectId, { jobsPerDay: 10, bytesPerMonth: 1_000 }))

    const answer = await usage(key, "?from=2026-11-20&to=2026-11-22")
    expect(answer.statusCode, answer.body).toBe(200)
    const data = answer.json().data
    expect(data.from).toBe("2026-11-20")
    expect(data.days.map((d: { date: string }) => d.date)).toEqual(["2026-11-20", "2026-11-21", "2026-11-22"])
    expect(data.days[0]).toEqual({
      date: "2026-11-20",
      jobs: { total: 2, queued: 0, processing: 0, completed: 1, failed: 1, expired: 0, canceled: 0 },
      errors: { download_failed: 1 },
      bytes_downloaded: 2_000,
      platforms: [
        {
          platform: "generic",
          jobs: { total: 1, queued: 0, processing: 0, completed: 0, failed: 1, expired: 0, canceled: 0 },
          bytes_downloaded: 0
        },
        {
          platform: "vimeo",
          jobs: { total: 1, queued: 0, processing: 0, completed: 1, failed: 0, expired: 0, canceled: 0 },
          bytes_downloaded: 2_000
        }
      ]
    })
    expect(data.totals).toEqual({
      jobs: { total: 3, queued: 0, processing: 0, completed: 1, failed: 1, expired: 0, canceled: 1 },
      bytes_downloaded: 2_000
    })
    expect(data.top_errors).toHaveLength(1)
    expect(data.top_errors[0].code).toBe("download_failed")
    expect(data.quotas).toEqual([
      expect.objectContaining({ name: "jobs_per_day", limit: 10, used: 0, remaining: 10 }),
      expect.objectContaining({ name: "bytes_per_month", limit: 1_000, used: 0, remaining: 1_000 })
    ])
  })

  it("quota use is what admission counted: jobs admitted today, bytes of completed jobs this month", async () => {
    const { key, projectId } = await file.h.provisionKey()
    await file.h.gateway.run(setProjectQuota(projectId, { bytesPerMonth: 1_000 }))
    const queued = await file.h.gateway.app.inject({
      method: "POST",
      url: "/v1/media/download",
      payload: JSON.stringify({ url: "https://vimeo.com/555", format: "video_best" }),
      headers: { "content-type": "application/json", "x-api-key": key }
    })
    expect(queued.statusCode, queued.body).toBe(202)
    await file.h.gateway.run(releaseSlot(projectId, queued.json().data.job_id, "completed", 300))
    const quotas = (await usage(key)).json().data.quotas
    expect(quotas).toEqual([
      expect.objectContaining({ name: "jobs_per_day", limit: null, used: 1, remaining: null }),
      expect.objectContaining({ name: "bytes_per_month", limit: 1_000, used: 300, remaining: 700 })
    ])
  })

  it("by default the last 30 days up to today", async () => {
    const { key } = await file.h.provisionKey()
    const data = (await usage(key)).json().data
    expect(data.days).toHaveLength(30)
    expect(data.to).toBe(utcDay(Date.now()))
  })

  it.each([
    ["?to=yesterday", 400, "invalid_request"],
    ["?from=2026-02-30", 422, "invalid_date_range"],
    ["?from=2026-11-02&to=2026-11-01", 422, "invalid_date_range"]
  ])("refuses %s with %s %s", async (query, status, code) => {
    const { key } = await file.h.provisionKey()
    const answer = await usage(key, query)
    expect(answer.statusCode).toBe(status)
    expect(answer.json().error.code).toBe(code)
    expect(answer.json().error.message).toMatch(/^(from|to):/)
  })
})
