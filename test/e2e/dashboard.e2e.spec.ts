// The developer dashboard in a real browser: sign in, create a project and a key, use it, rotate and revoke it, and
// watch a job's progress update on the page without a reload.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { eventually } from "../support/Eventually.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { launchChromium, screenshot } from "./DashboardBrowser.ts"
import { useMediaStack } from "./MediaStack.ts"

// Functions given to page.evaluate run inside the page (serialized, no closure): there `globalThis` is the window.
// This file is typechecked without the DOM library, hence `(globalThis as any)` in them.

const EMAIL = "dev@example.org"

// Slow enough that the page sees the slow clip mid-download for several refreshes.
const e2e = useMediaStack({ throttleBytesPerSecond: 256 * 1024, stack: () => ({ env: { KEY_LAST_USED_FLUSH_SECONDS: "1" } }), keys: 0 })
let browser: Browser
let context: BrowserContext
let page: Page
let origin: string
let password: string

beforeAll(async () => {
  origin = new URL(e2e.stack.baseUrl).origin
  // The first admin, made the documented way; without --password-stdin the CLI prints a generated password once.
  password = await e2e.stack.cli(["user", "create", EMAIL])
  browser = await launchChromium()
  context = await browser.newContext({ viewport: { width: 1280, height: 860 } })
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin })
  page = await context.newPage()
})

afterAll(async () => {
  await browser?.close()
})

const platforms = (key: string) => apiRequest(e2e.stack.baseUrl, "GET", "/platforms", { key })

/** Polls the API until the key gets the expected status (revocation reaches the gateway asynchronously). */
const untilStatus = (key: string, status: number, timeoutMs = 3_000) =>
  eventually(
    () => platforms(key),
    (r) => r.status === status,
    `HTTP ${status} for the key`,
    timeoutMs
  )

/** Everything the browser keeps that a script or an extension could read, plus where it has been. */
const browserTraces = async () => {
  const storage = await page.evaluate(() =>
    JSON.stringify({ local: { ...(globalThis as any).localStorage }, session: { ...(globalThis as any).sessionStorage } })
  )
  const cookies = JSON.stringify(await context.cookies())
  return `${page.url()}\n${storage}\n${cookies}`
}

const readSecret = async () => {
  const secret = await page.inputValue("#secret")
  expect(secret).toMatch(/^svc_live_[0-9A-Za-z]{40}$/)
  return secret
}

describe("developer dashboard in Chromium", () => {
  let firstKey: string
  let secondKey: string

  it("redirects to sign-in and signs in with the keyboard alone", async () => {
    await page.goto(`${origin}/dashboard`)
    expect(new URL(page.url()).pathname).toBe("/dashboard/login")
    await page.focus("#email")
    await page.keyboard.type(EMAIL)
    await page.keyboard.press("Tab")
    await page.keyboard.type(password)
    await Promise.all([page.waitForURL(`${origin}/dashboard`), page.keyboard.press("Enter")])
    expect(await page.textContent("h1")).toBe("Projects")
    const session = (await context.cookies()).find((cookie) => cookie.name === "mds_session")
    expect(session?.httpOnly).toBe(true)
    expect(session?.sameSite).toBe("Strict")
  })

  it("creates a project and a key whose secret is shown once and copied", async () => {
    await page.fill("#project-name", "Browser project")
    await Promise.all([page.waitForURL(/\/dashboard\/projects\/prj_[a-z2-7]{24}\/keys$/), page.click("text=Create project")])
    expect(await page.textContent("h1")).toBe("Browser project")

    await page.fill("#key-name", "backend")
    await page.click("button:has-text('Create key')")
    await page.waitForSelector("#secret")
    firstKey = await readSecret()
    await screenshot(page, "dashboard-key-created")

    await page.click("[data-copy-target=secret]")
    await page.waitForSelector("text=Copied to the clipboard.")
    expect(await page.evaluate((): Promise<string> => (globalThis as any).navigator.clipboard.readText())).toBe(firstKey)
    expect(await browserTraces()).not.toContain(firstKey)

    const used = await platforms(firstKey)
    expect(used.status, describeResponse(used)).toBe(200)

    // Back on the list the key shows only its prefix, and never again the secret.
    await page.click("text=Done: back to the keys")
    const row = page.locator("tr", { hasText: firstKey.slice(0, 13) })
    expect(await row.locator("td[data-label=Status]").textContent()).toContain("active")
    expect(await row.locator("td[data-label=Scopes]").textContent()).toBe("media:resolve, media:download")
    expect(await page.content()).not.toContain(firstKey.slice(0, 20))
  })

  it("shows when the key was last used (uses coalesced and flushed by the gateway)", async () => {
    const row = page.locator("tr", { hasText: firstKey.slice(0, 13) })
    const lastUsedCell = () => row.locator("td[data-label='Last used']").textContent()
    const lastUsed = await eventually(
      async () => {
        const text = await lastUsedCell()
        if (text === "never") await page.reload()
        return text
      },
      (text) => text !== "never",
      "the key's last use on the page",
      15_000,
      500
    )
    expect(lastUsed).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$/)
  })

  it("rotates the key: a twin with the same scopes, then the old key revoked and refused by the API", async () => {
    const oldRow = page.locator("tr", { hasText: firstKey.slice(0, 13) })
    await oldRow.locator("text=Rotate").click()
    await page.click("text=Step 1: create the replacement key")
    await page.waitForSelector("#secret")
    secondKey = await readSecret()
    expect(secondKey).not.toBe(firstKey)
    expect((await platforms(secondKey)).status).toBe(200)
    // Until the old key is revoked, both work.
    expect((await platforms(firstKey)).status).toBe(200)

    await page.click("text=I have switched: revoke the old key")
    await page.waitForSelector("text=is revoked")
    const refused = await untilStatus(firstKey, 401)
    expect(refused.body?.error?.code, describeResponse(refused)).toBe("revoked_api_key")
    expect((await platforms(secondKey)).status).toBe(200)

    const revokedRow = page.locator("tr", { hasText: firstKey.slice(0, 13) })
    expect(await revokedRow.locator("td[data-label=Status]").textContent()).toContain("revoked")
    const twin = page.locator("tr", { hasText: secondKey.slice(0, 13) })
    expect(await twin.locator("td[data-label=Scopes]").textContent()).toBe("media:resolve, media:download")
    expect(await twin.locator("td[data-label=Status]").textContent()).toContain("active")
    expect(await browserTraces()).not.toContain(secondKey)
    // The picture in the README (docs/dashboard-keys.png) is a copy of this one.
    await screenshot(page, "dashboard-keys")
  })

  it("revokes with a confirmation step", async () => {
    const twin = page.locator("tr", { hasText: secondKey.slice(0, 13) })
    await twin.locator("text=Revoke").click()
    expect(await page.textContent("h2#revoke-title")).toContain("backend")
    // Nothing happens until the confirmation is submitted.
    expect((await platforms(secondKey)).status).toBe(200)
    await page.click("text=Cancel")
    expect((await platforms(secondKey)).status).toBe(200)
  })

  it("updates a job's progress on the page without a reload", async () => {
    const queued = await apiRequest(e2e.stack.baseUrl, "POST", "/media/download", {
      key: secondKey,
      json: { url: e2e.media.urls.slow, format: "video_best" }
    })
    expect(queued.status, describeResponse(queued)).toBe(202)
    const jobId: string = queued.body.data.job_id

    await page.click("nav.tabs >> text=Jobs")
    await page.waitForSelector(`tr[data-job-id="${jobId}"]`)
    // A marker on the window survives only as long as the page is not reloaded.
    await page.evaluate(() => {
      ;(globalThis as any).mdsMarker = "same page"
    })

    const seen: Array<string> = []
    const status = await eventually(
      async () => {
        const row = page.locator(`tr[data-job-id="${jobId}"]`)
        const now = (await row.getAttribute("data-status")) ?? ""
        const progress = (await row.locator("[data-field=progress]").textContent()) ?? ""
        const snapshot = `${now}:${progress}`
        if (seen.at(-1) !== snapshot) seen.push(snapshot)
        if (now === "processing" && seen.filter((s) => s.startsWith("processing")).length === 2) {
          await screenshot(page, "dashboard-jobs-progress")
        }
        return now
      },
      (now) => now === "completed" || now === "failed",
      () => `the job finished on the page; snapshots ${seen.join(" ")}\n${e2e.stack.logs()}`,
      120_000,
      250
    )
    expect(status, `snapshots ${seen.join(" ")}\n${e2e.stack.logs()}`).toBe("completed")
    expect(await page.evaluate((): string => (globalThis as any).mdsMarker)).toBe("same page")
    const midway = seen.filter((s) => /^processing:([1-9]|[1-9]\d)%$/.test(s))
    expect(midway.length, `snapshots ${seen.join(" ")}`).toBeGreaterThanOrEqual(2)
    expect(seen.at(-1)).toBe("completed:100%")
  })

  it("fits a phone-width screen", async () => {
    await page.setViewportSize({ width: 390, height: 844 })
    // Measure the keys page itself, not the jobs page the click navigates away from.
    await Promise.all([
      page.waitForURL((url) => url.pathname.endsWith("/keys"), { waitUntil: "load" }),
      page.click("nav.tabs >> text=API keys")
    ])
    const overflow = await page.evaluate(
      (): number => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth
    )
    expect(overflow).toBeLessThanOrEqual(0)
    await screenshot(page, "dashboard-keys-phone")
  })

  it("no secret or password ever reached a service's log", () => {
    const logs = e2e.stack.logs()
    for (const secret of [firstKey, secondKey, password]) expect(logs).not.toContain(secret)
  })

  it("signs out, after which the dashboard asks to sign in again", async () => {
    await page.setViewportSize({ width: 1280, height: 860 })
    await page.click("text=Sign out")
    expect(new URL(page.url()).pathname).toBe("/dashboard/login")
    await page.goto(`${origin}/dashboard`)
    expect(new URL(page.url()).pathname).toBe("/dashboard/login")
  })
})
