// Project quotas at admission: jobs per day and downloaded bytes per month, judged with the slots, on two gateways.
import { releaseSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { DownloadMedia } from "@mds/shared/domain/job/DownloadMedia"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { downloadWorkSubject, mediaSubject } from "@mds/shared/nats/Subjects"
import { resolvedMedia } from "../../../test/int/readmodel/MediaReadModel.contract.ts"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { setProjectQuota } from "../src/accounts/AccountCommands.ts"
import { runAdminCommand } from "../src/cli/runAdminCommand.ts"
import { type GatewayInstance, useHarness } from "./GatewayHarness.ts"
import { eventually } from "../../../test/support/Eventually.ts"

const file = useHarness({ second: true })

const download = (gateway: GatewayInstance, key: string) =>
  gateway.app.inject({
    method: "POST",
    url: "/v1/media/download",
    payload: JSON.stringify({ url: "https://vimeo.com/555", format: "video_best" }),
    headers: { "content-type": "application/json", "x-api-key": key }
  })

const nextUtcMidnight = (now: number) => {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
}

const workOf = (projectId: string, jobId: string) =>
  file.h.gateway.run(
    Effect.map(
      Effect.flatMap(EventStore, (store) => store.readSubject(DownloadMedia, downloadWorkSubject(projectId, jobId))),
      (stored) => stored.map((s) => s.event).find((work) => work.jobId === jobId)
    )
  )

describe("project quotas", () => {
  it("two gateways racing for the last job of the day's quota: one 202, one 429 quota_exceeded", async () => {
    const { key, projectId } = await file.h.provisionKey()
    await file.h.gateway.run(setProjectQuota(projectId, { jobsPerDay: 1 }))
    // Both slots are free: only the quota can refuse one of the two.
    const [a, b] = await Promise.all([download(file.h.gateway, key), download(file.second, key)])
    const statuses = [a.statusCode, b.statusCode].sort()
    expect(statuses, `${a.body}\n${b.body}`).toEqual([202, 429])
    const refused = a.statusCode === 429 ? a : b
    expect(refused.json().error.code).toBe("quota_exceeded")
    const retryAfter = Number(refused.headers["retry-after"])
    const expected = Math.ceil((nextUtcMidnight(Date.now()) - Date.now()) / 1000)
    expect(Math.abs(retryAfter - expected)).toBeLessThanOrEqual(5)
    expect(refused.headers["ratelimit-policy"]).toBe('1;w=86400;name="jobs_per_day"')
    expect(refused.headers["ratelimit-limit"]).toBe("1")
    expect(refused.headers["ratelimit-remaining"]).toBe("0")
    expect(refused.headers["ratelimit-reset"]).toBe(String(retryAfter))
    // The refusal is no slot problem: the first job's slot is held, the second is free, and still no job fits.
    expect((await download(file.second, key)).json().error.code).toBe("quota_exceeded")
  })

  it("the admin CLI's quota applies: --jobs-per-day unlimited lifts it again", async () => {
    const { key, projectId } = await file.h.provisionKey()
    await file.h.gateway.run(runAdminCommand({ _tag: "SetQuota", projectId, jobsPerDay: "0" }))
    expect((await download(file.h.gateway, key)).json().error.code).toBe("quota_exceeded")
    await file.h.gateway.run(runAdminCommand({ _tag: "SetQuota", projectId, jobsPerDay: "unlimited" }))
    // Gateways remember a project's quota for a few seconds.
    const answer = await eventually(
      () => download(file.second, key),
      (reply) => reply.statusCode !== 429,
      "the lifted quota to reach the second gateway",
      10_000,
      100
    )
    expect(answer.statusCode, answer.body).toBe(202)
  })

  it("bytes of completed jobs count toward the month: once used up, 429 naming bytes_per_month; the work message carries what is left", async () => {
    const { key, projectId } = await file.h.provisionKey()
    await file.h.gateway.run(setProjectQuota(projectId, { bytesPerMonth: 100 }))
    const first = await download(file.h.gateway, key)
    expect(first.statusCode, first.body).toBe(202)
    const jobId = first.json().data.job_id as string
    expect((await workOf(projectId, jobId))?.quotaBytesLeft).toBe(100)
    // The worker completed a 60-byte file and freed the slot with its size.
    await file.h.gateway.run(releaseSlot(projectId, jobId, "completed", 60))
    const second = await download(file.second, key)
    expect(second.statusCode, second.body).toBe(202)
    const secondId = second.json().data.job_id as string
    expect((await workOf(projectId, secondId))?.quotaBytesLeft).toBe(40)
    await file.h.gateway.run(releaseSlot(projectId, secondId, "completed", 40))
    const refused = await download(file.h.gateway, key)
    expect(refused.statusCode, refused.body).toBe(429)
    expect(refused.json().error.code).toBe("quota_exceeded")
    expect(refused.headers["ratelimit-policy"]).toBe('100;w=2592000;name="bytes_per_month"')
  })

  it("a batch is refused while a quota is used up", async () => {
    const { key, projectId } = await file.h.provisionKey()
    const now = Date.now()
    const playlist = resolvedMedia({
      type: "playlist",
      formats: [{ id: "video_best", type: "video", quality: "1080p", container: "mp4" }],
      entries: [{ id: "ent_1", url: "https://example.com/1.mp4", title: "Clip 1", duration: 60 }],
      resolvedAt: now,
      expiresAt: now + 3_600_000
    })
    await file.h.gateway.run(
      Effect.flatMap(EventStore, (store) => store.append(MediaEvent, mediaSubject(playlist.mediaId), playlist, { msgId: playlist.mediaId }))
    )
    const create = () =>
      file.h.gateway.app.inject({
        method: "POST",
        url: "/v1/batches",
        payload: JSON.stringify({ media_id: playlist.mediaId, format: "video_best" }),
        headers: { "content-type": "application/json", "x-api-key": key }
      })
    await file.h.gateway.run(setProjectQuota(projectId, { jobsPerDay: 0 }))
    const refused = await create()
    expect(refused.statusCode, refused.body).toBe(429)
    expect(refused.json().error.code).toBe("quota_exceeded")
    expect(refused.headers["ratelimit-policy"]).toBe('0;w=86400;name="jobs_per_day"')
  })
})
