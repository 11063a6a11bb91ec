// The dashboard's subscriptions tab in Chromium: add a subscription of a feed, see it listed with its last check's
// counts, refused input shown on the page, pause, resume, check now and remove, and a project outsider sees none of it.
import { Effect, Option } from "effect"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { SubscriptionReadModel } from "@mds/shared/readmodel/SubscriptionReadModel"
import { eventually } from "../../../../test/support/Eventually.ts"
import { launchChromium, screenshot } from "../../../../test/e2e/DashboardBrowser.ts"
import { runAdminCommand } from "../../src/cli/runAdminCommand.ts"
import { loadSubscription } from "../../src/subscriptions/SubscriptionUseCases.ts"
import { startFakeExtractor } from "../GatewayHarness.ts"
import { type DashboardHarness, startDashboardHarness } from "./DashboardHarness.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { mkdtemp } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"

const ADMIN = { email: "admin@example.org", password: "bootstrap-password-1" }
const EVE = { email: "eve@example.org", password: "eves-password-1234" }
const FEED = "https://podcasts.example.com/feed/weekly.xml"

let h: DashboardHarness
let extractor: Awaited<ReturnType<typeof startFakeExtractor>>
let browser: Browser
let page: Page
let origin: string
let projectId: string

beforeAll(async () => {
  h = await startDashboardHarness({ DASHBOARD_ADMIN_EMAIL: ADMIN.email, DASHBOARD_ADMIN_PASSWORD: ADMIN.password })
  await h.gateway.run(
    runAdminCommand({ _tag: "CreateUser", email: EVE.email, passwordFromStdin: true }, { readStdin: Effect.succeed(`${EVE.password}\n`) })
  )
  extractor = await startFakeExtractor(h.nats.url, h.gateway)
  origin = (await h.gateway.app.listen({ host: "127.0.0.1", port: 0 })).replace("localhost", "127.0.0.1")
  browser = await launchChromium()
  page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage()
})

afterAll(async () => {
  await browser?.close()
  await extractor?.close()
  await h?.close()
})

const signIn = async (email: string, password: string) => {
  await page.goto(`${origin}/dashboard/login`)
  await page.fill("#email", email)
  await page.fill("#password", password)
  await Promise.all([page.waitForURL(`${origin}/dashboard`), page.click("button[type=submit]")])
}

const row = () => page.locator("tr[data-subscription-id]", { hasText: FEED })

/** Submits a form by clicking and waits for the page the POST answers with. */
const submit = (selector: string) => Promise.all([page.waitForEvent("load"), page.locator(selector).click()])

describe("dashboard subscriptions in Chromium", () => {
  let subscriptionId: string

  it("adds a subscription from the tab's form and lists it, active with its first check due", async () => {
    await signIn(ADMIN.email, ADMIN.password)
    await page.fill("#project-name", "Podcasts")
    await Promise.all([page.waitForURL(/\/dashboard\/projects\/prj_[a-z2-7]{24}\/keys$/), page.click("text=Create project")])
    projectId = /projects\/(prj_[a-z2-7]{24})\//.exec(page.url())?.[1] ?? ""
    await Promise.all([page.waitForURL(/\/subscriptions$/), page.click("nav.tabs >> text=Subscriptions")])
    expect(await page.textContent("nav.tabs [aria-current=page]")).toBe("Subscriptions")
    expect(await page.isVisible("text=No subscriptions yet.")).toBe(true)

    await page.fill("#subscription-url", FEED)
    await page.selectOption("#subscription-format", "audio_m4a")
    await page.selectOption("#subscription-every", "21600")
    await page.fill("#subscription-title", "Bonus")
    await page.fill("#subscription-min", "30")
    await page.fill("#subscription-max", "7200")
    await page.fill("#subscription-backfill", "2")
    await submit("button:has-text('Subscribe')")

    expect(await page.textContent("[role=status]")).toBe(`Subscribed to ${FEED}; its first check runs now.`)
    expect(await row().getAttribute("data-status")).toBe("active")
    expect(await row().locator("td[data-label=Subscription]").textContent()).toContain(
      "audio_m4a · every 6 hours · title contains “Bonus”, ≥ 30 s, ≤ 7200 s"
    )
    expect(await row().locator("td[data-label='Last check']").textContent()).toBe("not yet")
    expect(await row().locator("td[data-label='Next check']").textContent()).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/)
    expect(await page.isVisible("text=No subscriptions yet.")).toBe(false)
    subscriptionId = (await row().getAttribute("data-subscription-id")) ?? ""
    // Stored as the API creates it: the same use case behind both.
    const stored = await h.gateway.run(loadSubscription(projectId, subscriptionId))
    expect(stored).toMatchObject({ format: parseFormatId("audio_m4a"), checkEveryMs: 21_600_000, backfill: 2, paused: false })
    expect(stored.filters).toEqual({ titleContains: "Bonus", minDurationSeconds: 30, maxDurationSeconds: 7200 })
  })

  it("shows a refusal next to the form, with what was typed kept", async () => {
    await page.fill("#subscription-url", "https://example.com/watch/1")
    await submit("button:has-text('Subscribe')")
    expect(await page.textContent("[role=alert]")).toContain("not as a playlist")
    expect(await page.inputValue("#subscription-url")).toBe("https://example.com/watch/1")
    await page.fill("#subscription-url", `${FEED}?again`)
    await page.fill("#subscription-backfill", "51")
    await submit("button:has-text('Subscribe')")
    expect(await page.textContent("[role=alert]")).toContain("50")
    expect(await page.locator("tr[data-subscription-id]").count()).toBe(1)
  })

  it("shows the last check's counts and time once a check is recorded", async () => {
    // The aggregator runs checks; here its outcome is recorded as it would record it: both entries filtered out.
    await h.gateway.run(
      Effect.gen(function* () {
        const state = yield* loadSubscription(projectId, subscriptionId)
        const commands = subscriptionCommands(projectId, subscriptionId)
        const dueAt = state.nextCheckAt
        yield* commands({
          _tag: "PlanCheck",
          subscriptionId,
          dueAt,
          now: Date.now(),
          mediaId: "med_feed",
          platform: "generic",
          found: 2,
          fresh: 2,
          filtered: 2,
          seen: ["ent_1", "ent_2"],
          refreshed: [],
          candidates: [],
          requeue: [],
          limit: null,
          hold: null
        })
        yield* commands({ _tag: "RecordCheck", subscriptionId, dueAt, now: Date.now(), queued: null, waiting: [] })
      })
    )
    // The list is the aggregator's read model, which folds the check a moment later: the dashboard's own writes wait
    // for it (read-your-writes), a write made here waits too, or the page could be rendered before the check is in it.
    await eventually(
      () => h.gateway.run(Effect.flatMap(SubscriptionReadModel, (read) => read.get(projectId, subscriptionId))),
      (view) => Option.isSome(view) && view.value.lastCheck !== null,
      "the subscription read model to fold the recorded check"
    )
    // Open the tab afresh (a reload would repeat the last form's POST).
    await page.goto(`${origin}/dashboard/projects/${projectId}/subscriptions`)
    expect(await row().locator("[data-field=counts]").textContent()).toBe("2 found · 2 new · 2 filtered · 0 queued")
    await screenshot(page, "dashboard-subscriptions")
  })

  it("pauses (no next check, no check now), resumes and checks now", async () => {
    await submit(`tr[data-subscription-id="${subscriptionId}"] button:has-text('Pause')`)
    expect(await page.textContent("[role=status]")).toBe(`${FEED} is paused.`)
    expect(await row().getAttribute("data-status")).toBe("paused")
    expect(await row().locator("td[data-label='Next check']").textContent()).toBe("paused")
    expect(await row().locator("button:has-text('Check now')").count()).toBe(0)
    expect((await h.gateway.run(loadSubscription(projectId, subscriptionId))).paused).toBe(true)

    await submit(`tr[data-subscription-id="${subscriptionId}"] button:has-text('Resume')`)
    expect(await row().getAttribute("data-status")).toBe("active")
    await submit(`tr[data-subscription-id="${subscriptionId}"] button:has-text('Check now')`)
    expect(await page.textContent("[role=status]")).toBe(`${FEED} is being checked now.`)
    const checked = await h.gateway.run(loadSubscription(projectId, subscriptionId))
    expect(checked.nextCheckAt).toBeLessThanOrEqual(Date.now())
  })

  it("keeps the tab from a user outside the project", async () => {
    const context = await browser.newContext()
    const outsider = await context.newPage()
    await outsider.goto(`${origin}/dashboard/login`)
    await outsider.fill("#email", EVE.email)
    await outsider.fill("#password", EVE.password)
    await Promise.all([outsider.waitForURL(`${origin}/dashboard`), outsider.click("button[type=submit]")])
    const denied = await outsider.goto(`${origin}/dashboard/projects/${projectId}/subscriptions`)
    expect(denied?.status()).toBe(404)
    expect(await outsider.content()).not.toContain(FEED)
    await context.close()
  })

  it("refuses a form without the session's CSRF token, from another origin or from a user outside the project", async () => {
    const admin = h.client()
    await admin.signIn(ADMIN.email, ADMIN.password)
    const base = `/dashboard/projects/${projectId}/subscriptions`
    expect((await admin.post(base, { url: `${FEED}?forged`, format: "audio_mp3", check_every: "3600", _csrf: "" })).status).toBe(403)
    expect((await admin.post(`${base}/${subscriptionId}/remove`, {}, { origin: "https://evil.example" })).status).toBe(403)
    const eve = h.client()
    await eve.signIn(EVE.email, EVE.password)
    await eve.get("/dashboard")
    expect((await eve.post(`${base}/${subscriptionId}/pause`, {})).status).toBe(404)
    const still = await h.gateway.run(loadSubscription(projectId, subscriptionId))
    expect(still.paused).toBe(false)
    expect((await admin.get(base)).body).not.toContain(`${FEED}?forged`)
  })

  it("fits a phone-width screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    await page.goto(`${origin}/dashboard/projects/${projectId}/subscriptions`)
    const overflow = await page.evaluate(
      (): number => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth
    )
    expect(overflow).toBeLessThanOrEqual(0)
    await page.setViewportSize({ width: 1280, height: 900 })
  })

  it("removes it: gone from the list and from the API's reads", async () => {
    await submit(`tr[data-subscription-id="${subscriptionId}"] button:has-text('Remove')`)
    expect(await page.textContent("[role=status]")).toBe("The subscription is removed.")
    expect(await page.locator("tr[data-subscription-id]").count()).toBe(0)
    expect(await page.isVisible("text=No subscriptions yet.")).toBe(true)
    const gone = await h.gateway.run(Effect.flip(loadSubscription(projectId, subscriptionId)))
    expect(gone._tag).toBe("SubscriptionNotFound")
  })

  it("adds one delivering into a destination of the project, keeping the newest 5: the row says where and what it keeps", async () => {
    const folder = await mkdtemp(join(tmpdir(), "mds-dashboard-library-"))
    const destinationId = String(
      await h.gateway.run(runAdminCommand({ _tag: "AddFolderDestination", projectId, name: "Podcast library", path: folder }))
    )
    await page.goto(`${origin}/dashboard/projects/${projectId}/subscriptions`)
    const library = `${FEED}?library`
    await page.fill("#subscription-url", library)
    await page.selectOption("#subscription-destination", destinationId)
    await page.selectOption("#subscription-keep", "last")
    await submit("button:has-text('Subscribe')")
    expect(await page.textContent("[role=alert]")).toContain("Keep: give how many entries")
    expect(await page.inputValue("#subscription-destination")).toBe(destinationId)
    await page.fill("#subscription-keep-count", "5")
    await submit("button:has-text('Subscribe')")
    expect(await page.textContent("[role=status]")).toBe(`Subscribed to ${library}; its first check runs now.`)
    const listed = page.locator("tr[data-subscription-id]", { hasText: library })
    expect(await listed.locator("[data-field=library]").textContent()).toBe("into Podcast library, keeps the last 5")
    const stored = await h.gateway.run(loadSubscription(projectId, (await listed.getAttribute("data-subscription-id")) ?? ""))
    expect(stored.options?.delivery?.destinationId).toBe(destinationId)
    expect(stored.retention).toEqual({ keepLast: 5 })
  })
})
