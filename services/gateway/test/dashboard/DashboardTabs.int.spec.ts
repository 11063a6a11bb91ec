// The dashboard's Usage tab (quota bars, SVG charts, top errors linking to their jobs), quotas on the settings page,
// the Jobs tab's filters and live list (server-sent events) and the Webhooks tab (deliveries, redeliver): over HTTP in
// process and on a socket, and drawn by Chromium (docs/dashboard-usage.png is its screenshot).
import { mkdir } from "node:fs/promises"
import { join } from "node:path"
import { Effect } from "effect"
import { chromium } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { JobUsage } from "@mds/shared/domain/usage/JobUsage"
import { utcDay } from "@mds/shared/domain/admission/Quota"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { UsageReadModel } from "@mds/shared/readmodel/UsageReadModel"
import {
  WebhookDeliveryAttempted,
  type WebhookDeliveryAttemptedV1,
  WebhookRedeliveryRequested
} from "@mds/shared/domain/webhook/WebhookEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { webhookDeliverySubject, webhookRedeliverSubject } from "@mds/shared/nats/Subjects"
import { jobView } from "../../../../test/support/JobViews.ts"
import { jobCompleted, jobFailed, jobProgressed, jobQueued, jobStarted } from "../../../../test/support/JobEvents.ts"
import { sseReader } from "../../../../test/support/SseReader.ts"
import { deliveryAttemptV1 } from "../../../../test/support/WebhookAttempts.ts"
import { jobUsage } from "../../../../test/int/readmodel/UsageReadModel.contract.ts"
import { setProjectQuota } from "../../src/accounts/AccountCommands.ts"
import type { DashboardClient } from "../../../../test/support/DashboardClient.ts"
import { type DashboardHarness, startDashboardHarness } from "./DashboardHarness.ts"

const ADMIN = { email: "admin@example.org", password: "bootstrap-password-1" }
const DAY_MS = 86_400_000

let h: DashboardHarness
let admin: DashboardClient
let projectId: string
/** The gateway on a socket: for event streams and Chromium. */
let address: string

const projectIdIn = (html: string) => /\/dashboard\/projects\/(prj_[a-z2-7]{24})\//.exec(html)?.[1] ?? ""

/** Three weeks of a busy project: more completions each day, a few failures and cancels, today still running. */
const seedUsage = async () => {
  const today = Date.now()
  const entries: Array<JobUsage> = []
  for (let d = 20; d >= 0; d--) {
    const day = utcDay(today - d * DAY_MS)
    const add = (n: number, fields: Partial<JobUsage>) => {
      for (let i = 0; i < n; i++) entries.push(jobUsage(projectId, { day, ...fields }))
    }
    add(3 + ((20 - d) % 7), { status: "completed", bytes: (40 + d * 3) * 1024 * 1024, platform: d % 3 === 0 ? "generic" : "vimeo" })
    add(d % 4 === 0 ? 2 : 1, { status: "failed", errorCode: d % 5 === 0 ? "media_unavailable" : "download_failed" })
    if (d % 6 === 0) add(1, { status: "canceled" })
    if (d === 0) add(2, { status: "processing" })
  }
  await h.gateway.run(Effect.flatMap(UsageReadModel, (store) => Effect.forEach(entries, (e) => store.record(e), { discard: true })))
  return entries
}

beforeAll(async () => {
  h = await startDashboardHarness({ DASHBOARD_ADMIN_EMAIL: ADMIN.email, DASHBOARD_ADMIN_PASSWORD: ADMIN.password })
  admin = h.client()
  await admin.signIn(ADMIN.email, ADMIN.password)
  projectId = projectIdIn((await admin.post("/dashboard/projects", { name: "Acme videos" })).body)
  await h.gateway.run(setProjectQuota(projectId, { jobsPerDay: 500, bytesPerMonth: 50 * 1024 ** 3 }))
  address = await h.gateway.app.listen({ host: "127.0.0.1", port: 0 })
})

afterAll(async () => {
  await h?.close()
})

describe("dashboard usage", () => {
  it("shows quota bars, a stacked bar per day, bytes per day and the top error codes linking to example jobs", async () => {
    const entries = await seedUsage()
    const page = await admin.get(`/dashboard/projects/${projectId}/usage`)
    expect(page.status).toBe(200)
    expect(page.body).toContain('data-quota="jobs_per_day"')
    expect(page.body).toMatch(/<meter min="0" max="500" value="0"/)
    expect(page.body).toContain("0 B of 50 GB")
    // One completed segment per day that had completions: 21 days.
    expect([...page.body.matchAll(/<rect class="series-completed"/g)]).toHaveLength(21)
    expect([...page.body.matchAll(/<rect class="series-bytes"/g)]).toHaveLength(21)
    const failed = entries.filter((e) => e.errorCode === "download_failed").length
    expect(page.body).toMatch(new RegExp(`<tr data-error-code="download_failed">[\\s\\S]*?<td data-label="Jobs">${failed}</td>`))
    expect(page.body).toContain(`href="/dashboard/projects/${projectId}/jobs?error=download_failed#job_`)
  })

  it("a bad range is explained, and the default range shown", async () => {
    const page = await admin.get(`/dashboard/projects/${projectId}/usage?from=2026-02-30`)
    expect(page.status).toBe(422)
    expect(page.body).toContain("from: 2026-02-30 is not a calendar day.")
    const malformed = await admin.get(`/dashboard/projects/${projectId}/usage?to=yesterday`)
    expect(malformed.status).toBe(400)
    expect(malformed.body).toContain("to: must be a date written YYYY-MM-DD.")
  })

  it("the settings page shows the project's quotas", async () => {
    const page = await admin.get(`/dashboard/projects/${projectId}/settings`)
    expect(page.body).toContain('<h2 id="quotas-title">Quotas</h2>')
    expect(page.body).toContain('data-quota="bytes_per_month"')
  })

  it("the Jobs tab filters by status, platform and error code, and its live stream keeps the filter", async () => {
    const now = Date.now()
    const live = { createdAt: now - 1_000, expiresAt: now + 3_600_000 }
    const running = jobView(projectId, { status: "processing", platform: "vimeo", ...live })
    const broken = jobView(projectId, {
      status: "failed",
      platform: "generic",
      ...live,
      error: { code: "download_failed", message: "503", retryable: true }
    })
    const canceled = jobView(projectId, {
      status: "failed",
      platform: "vimeo",
      ...live,
      error: { code: "canceled", message: "x", retryable: false }
    })
    await h.gateway.run(Effect.flatMap(JobReadModel, (jobs) => Effect.forEach([running, broken, canceled], (job) => jobs.put(job))))

    const byError = await admin.get(`/dashboard/projects/${projectId}/jobs?error=download_failed`)
    expect(byError.body).toContain(broken.id)
    expect(byError.body).not.toContain(running.id)
    expect(byError.body).toContain(`data-live-jobs="/dashboard/projects/${projectId}/jobs/events?error=download_failed"`)
    expect(byError.body).toMatch(/<option value="download_failed" selected>/)

    const ids = async (query: string) => rowIdsIn((await admin.get(`/dashboard/projects/${projectId}/jobs${query}`)).body)
    expect(await ids("?status=canceled")).toEqual([canceled.id])
    expect((await ids("?platform=vimeo")).sort()).toEqual([running.id, canceled.id].sort())
    expect(await ids("?status=failed&platform=generic")).toEqual([broken.id])
    expect(await ids("?status=failed&platform=vimeo")).toEqual([])
  })

  it("the Jobs tab's live stream: the filtered list brought up to date, then every change of a job passing the filter, and `gone` when one leaves it", async () => {
    const project = projectIdIn((await admin.post("/dashboard/projects", { name: "Live jobs" })).body)
    const now = Date.now()
    // A document projected from no event of the stream (lastSeq 0): every event of its subject is newer.
    const running = jobView(project, { status: "processing", progress: 10, createdAt: now - 5_000, expiresAt: now + 3_600_000, lastSeq: 0 })
    await h.gateway.run(Effect.flatMap(JobReadModel, (jobs) => jobs.put(running)))
    // An event the read model does not hold yet (its projection is behind): the list shows 10 %, the job is at 30 %.
    await recordJob(project, running.id, jobProgressed(running.id, 30, now))
    const controller = new AbortController()
    try {
      const response = await fetch(`${address}/dashboard/projects/${project}/jobs/events?status=processing`, {
        headers: { cookie: cookieHeader(admin) },
        signal: controller.signal
      })
      expect(response.status).toBe(200)
      expect(response.headers.get("content-type")).toMatch(/^text\/event-stream/)
      expect(response.headers.get("content-security-policy")).toContain("default-src 'none'")
      const events = sseReader(response.body!)
      const list = await events.next()
      expect(list?.event).toBe("jobs")
      expect(list?.data.jobs).toEqual([expect.objectContaining({ id: running.id, status: "processing", progress: 10 })])
      // A listed job that has not ended is read afresh at once: the event before the stream's start is not lost.
      expect(await events.next()).toMatchObject({ event: "job", data: { id: running.id, progress: 30 } })

      // A new job: queued does not pass the filter; processing does, and each whole percent after.
      const jobId = newId("job")
      await recordJob(project, jobId, jobQueued(project, jobId, now, { platform: "vimeo" }), jobStarted(jobId, now + 1))
      const joined = await events.next()
      expect(joined).toMatchObject({ event: "job", data: { id: jobId, status: "processing", progress: 0, platform: "vimeo" } })
      expect(joined?.data.created).toBe(now)
      await recordJob(project, jobId, jobProgressed(jobId, 55, now + 2))
      expect(await events.next()).toMatchObject({ event: "job", data: { id: jobId, status: "processing", progress: 55 } })
      // The job of the list fails: it leaves the filter.
      await recordJob(project, running.id, jobFailed(running.id, now + 3))
      expect(await events.next()).toMatchObject({ event: "gone", data: { id: running.id } })
    } finally {
      controller.abort()
    }
  })
})

const rowIdsIn = (html: string) => [...html.matchAll(/data-job-id="(job_[a-z2-7]+)"/g)].map((m) => m[1])

const cookieHeader = (client: DashboardClient) => [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; ")

const recordJob = (project: string, jobId: string, ...events: ReadonlyArray<JobEvent>) =>
  h.gateway.run(
    Effect.flatMap(EventStore, (store) =>
      Effect.forEach(events, (event) =>
        store.append(JobEvent, jobSubject(project, jobId), event, { msgId: `${jobId}:${JSON.stringify(event)}` })
      )
    )
  )

const attempt = (fields: Partial<WebhookDeliveryAttemptedV1>) =>
  deliveryAttemptV1({
    deliveryId: "dlv_aaaaaaaaaaaaaaaaaaaaaaaa",
    projectId,
    eventType: "job.completed",
    at: Date.now() - 60_000,
    nextAttemptAt: Date.now() + 60_000,
    ...fields
  })

describe("dashboard webhooks", () => {
  it("lists each delivery's latest attempt with status code, attempts and next retry; redeliver asks once, not while retrying", async () => {
    const now = Date.now()
    const log = [
      attempt({ at: now - 30_000, nextAttemptAt: now - 20_000 }),
      attempt({ attempt: 2, outcome: "failed", statusCode: 500, error: "HTTP 500", at: now - 10_000, nextAttemptAt: null }),
      attempt({
        deliveryId: "dlv_bbbbbbbbbbbbbbbbbbbbbbbb",
        jobId: "job_bbbbbbbbbbbbbbbbbbbbbbbb",
        eventType: "job.failed",
        at: now - 5_000
      })
    ]
    await h.gateway.run(
      Effect.flatMap(EventStore, (store) =>
        Effect.forEach(log, (event, i) =>
          store.append(WebhookDeliveryAttempted, webhookDeliverySubject(projectId), event, { msgId: `log-${i}` })
        )
      )
    )
    const page = await admin.get(`/dashboard/projects/${projectId}/webhooks`)
    expect(page.status).toBe(200)
    const rows = [...page.body.matchAll(/<tr data-delivery-id="(dlv_[a-z]+)">([\s\S]*?)<\/tr>/g)]
    expect(rows.map((m) => m[1])).toEqual(["dlv_bbbbbbbbbbbbbbbbbbbbbbbb", "dlv_aaaaaaaaaaaaaaaaaaaaaaaa"])
    const [retrying, gaveUp] = rows.map((m) => m[2] ?? "")
    expect(retrying).toContain('<td data-label="Status code">503')
    expect(retrying).toContain("retrying")
    expect(retrying).not.toContain("Redeliver</button>")
    expect(gaveUp).toContain('<td data-label="Attempts">2</td>')
    expect(gaveUp).toContain('<td data-label="Next retry">—</td>')
    expect(gaveUp).toContain("Redeliver</button>")

    const asked = await admin.post(`/dashboard/projects/${projectId}/webhooks/dlv_aaaaaaaaaaaaaaaaaaaaaaaa/redeliver`, {})
    expect(asked.body).toContain("will be sent again in a moment")
    await admin.post(`/dashboard/projects/${projectId}/webhooks/dlv_aaaaaaaaaaaaaaaaaaaaaaaa/redeliver`, {})
    const requests = await h.gateway.run(
      Effect.flatMap(EventStore, (store) => store.readSubject(WebhookRedeliveryRequested, webhookRedeliverSubject(projectId)))
    )
    expect(requests.map((r) => r.event)).toEqual([
      expect.objectContaining({ deliveryId: "dlv_aaaaaaaaaaaaaaaaaaaaaaaa", jobId: "job_aaaaaaaaaaaaaaaaaaaaaaaa" })
    ])

    const refused = await admin.post(`/dashboard/projects/${projectId}/webhooks/dlv_bbbbbbbbbbbbbbbbbbbbbbbb/redeliver`, {})
    expect(refused.status).toBe(400)
    expect(refused.body).toContain("still being retried")
  })
})

describe("dashboard tabs in Chromium", () => {
  it("draws the usage charts and quota bars, redelivers from the Webhooks tab, and the Jobs tab follows a job without a reload; screenshots", async () => {
    const browser = await chromium.launch({ executablePath: "/usr/bin/chromium", args: ["--headless", "--no-sandbox", "--disable-gpu"] })
    try {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } })
      await page.goto(`${address}/dashboard/login`)
      await page.fill('input[name="email"]', ADMIN.email)
      await page.fill('input[name="password"]', ADMIN.password)
      await Promise.all([page.waitForURL(`${address}/dashboard`), page.click('button[type="submit"]')])
      await page.goto(`${address}/dashboard/projects/${projectId}/usage`)
      const chart = page.locator('svg[role="img"]').first()
      // Drawn, not just present: the first chart has a height and its bars have area.
      const box = await chart.boundingBox()
      expect(box?.height ?? 0).toBeGreaterThan(100)
      const bar = await page.locator("rect.series-completed").first().boundingBox()
      expect((bar?.width ?? 0) * (bar?.height ?? 0)).toBeGreaterThan(10)
      // Runs in the page (this file is typechecked without the DOM library).
      const fill = await page
        .locator("rect.series-failed")
        .first()
        .evaluate((node) => (globalThis as any).getComputedStyle(node).fill)
      expect(fill).toBe("rgb(217, 48, 37)")
      expect(await page.locator("meter").count()).toBe(2)
      // The picture in docs/operations.md (docs/dashboard-usage.png) is a copy of this one.
      const artifacts = join(import.meta.dirname, "..", "..", "..", "..", "test", "artifacts")
      await mkdir(artifacts, { recursive: true })
      await page.screenshot({ path: join(artifacts, "dashboard-usage.png"), fullPage: true })

      // The Webhooks tab: its redeliver button posts the form and the page says so.
      await page.goto(`${address}/dashboard/projects/${projectId}/webhooks`)
      const redeliverButton = page.locator('tr[data-delivery-id] button:has-text("Redeliver")')
      expect(await redeliverButton.count()).toBe(1)
      await Promise.all([page.waitForURL(/\/webhooks\/dlv_a+\/redeliver$/), redeliverButton.click()])
      expect(await page.locator(".alert.notice").textContent()).toContain("will be sent again in a moment")
      await page.screenshot({ path: join(artifacts, "dashboard-webhooks.png"), fullPage: true })

      // The Jobs tab: a job that appears and changes state shows up and moves on in place, the page never reloaded.
      await page.goto(`${address}/dashboard/projects/${projectId}/jobs`)
      await page.waitForSelector('tbody[data-live="open"]')
      // A marker on the window survives only as long as the page is not reloaded.
      await page.evaluate(() => {
        ;(globalThis as any).mdsMarker = "same page"
      })
      const jobId = newId("job")
      const now = Date.now()
      await recordJob(projectId, jobId, jobQueued(projectId, jobId, now, { platform: "vimeo" }))
      await page.waitForSelector(`tr[data-job-id="${jobId}"][data-status="queued"]`)
      // Newest first: the new job is the top row.
      expect(await page.locator("tbody[data-live-jobs] tr").first().getAttribute("data-job-id")).toBe(jobId)
      await recordJob(projectId, jobId, jobStarted(jobId, now + 1), jobProgressed(jobId, 64, now + 2))
      await page.locator(`tr[data-job-id="${jobId}"] [data-field=progress]`, { hasText: "64%" }).waitFor()
      expect(await page.locator(`tr[data-job-id="${jobId}"]`).getAttribute("data-status")).toBe("processing")
      // docs/dashboard-jobs.png is the e2e tier's picture of this tab (dashboard-jobs-media.png), with media titles.
      await page.screenshot({ path: join(artifacts, "dashboard-jobs.png"), fullPage: true })
      await recordJob(projectId, jobId, jobCompleted(projectId, jobId, now + 3))
      await page.waitForSelector(`tr[data-job-id="${jobId}"][data-status="completed"]`)
      expect(await page.locator(`tr[data-job-id="${jobId}"]`).count()).toBe(1)
      expect(await page.evaluate((): string => (globalThis as any).mdsMarker)).toBe("same page")
    } finally {
      await browser.close()
    }
  })
})
