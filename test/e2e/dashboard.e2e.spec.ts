// The developer dashboard in a real browser: sign in, create a project and a key, use it, rotate and revoke it, and
// watch a job's progress update on the page without a reload; the Download tab: paste a link, see the media, download
// it to 100 % and save the file; a playlist as a batch; refusals (an unsupported site, two busy slots) in words; the
// share target and the bookmarklet filling the link in.
import { readFile } from "node:fs/promises"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { eventually } from "../support/Eventually.ts"
import { apiRequest, describeResponse } from "./ApiClient.ts"
import { launchChromium, screenshot } from "./DashboardBrowser.ts"
import { useMediaStack } from "./MediaStack.ts"
import { clipPage, podcastFeedEpisodes } from "../support/MediaServer.ts"

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

  /** The id of the focused element, or the code of a focused refusal. */
  const focused = () =>
    page.evaluate((): string => {
      const active = (globalThis as any).document.activeElement
      return active?.getAttribute("data-refusal") ?? active?.id ?? ""
    })

  const downloadTab = () => Promise.all([page.waitForURL(/\/download$/), page.click("nav.tabs >> text=Download")])

  /** Looks a link up with the keyboard (Enter in the field) and waits for the page that answers. */
  const lookUp = async (url: string, playlist = false) => {
    await page.fill("#media-url", url)
    if (playlist) await page.check("#media-playlist")
    await Promise.all([page.waitForEvent("load"), page.press("#media-url", "Enter")])
  }

  /** Presses Download on a looked-up media; the job's page follows. */
  const download = async () => {
    await Promise.all([page.waitForURL(/\/download\/jobs\/job_/), page.click("form.download-form button[type=submit]")])
    return /\/download\/jobs\/(job_[a-z2-7]+)/.exec(page.url())?.[1] ?? ""
  }

  it("downloads a pasted media page: its title and formats, live progress to 100 %, and Save gives the file", async () => {
    await downloadTab()
    // The field has the focus and reads links from the clipboard; it still holds the key copied above, not a link.
    expect(await focused()).toBe("media-url")
    expect(await page.inputValue("#media-url")).toBe("")
    await page.evaluate((url) => (globalThis as any).navigator.clipboard.writeText(url), e2e.media.urls.page)
    await page.locator("#media-url").blur()
    await page.focus("#media-url")
    await eventually(
      () => page.inputValue("#media-url"),
      (value) => value === e2e.media.urls.page,
      "the pasted link",
      5_000
    )
    await Promise.all([page.waitForEvent("load"), page.keyboard.press("Enter")])

    expect(await page.textContent("#media-title")).toBe(clipPage.title)
    expect(await focused()).toBe("media-title")
    const formats = await page.locator("input[name=format]").evaluateAll((inputs) => inputs.map((input) => (input as any).value as string))
    expect(formats).toEqual(expect.arrayContaining(["video_best", "audio_mp3", "audio_m4a"]))
    expect(await page.isChecked("#format-video_best")).toBe(true)
    // The platform's picture (another origin) is allowed by the page's policy and shown.
    expect(await page.locator(".resolved img.thumb").evaluate((img) => (img as any).naturalWidth as number)).toBeGreaterThan(0)
    // The picture in the README (docs/dashboard-download-resolved.png) is a copy of this one.
    await screenshot(page, "dashboard-download-resolved")

    const jobId = await download()
    expect(await focused()).toBe("job-title")
    const job = page.locator("section.job")
    const seen: Array<string> = []
    const status = await eventually(
      async () => {
        const now = `${await job.getAttribute("data-status")}:${await job.locator("[data-field=progress]").textContent()}`
        if (seen.at(-1) !== now) seen.push(now)
        return now
      },
      (now) => now.startsWith("completed") || now.startsWith("failed"),
      () => `the job's end on its page; seen ${seen.join(" ")}\n${e2e.stack.logs()}`,
      60_000,
      100
    )
    expect(status, seen.join(" ")).toBe("completed:100%")
    // Followed over the job's event stream to its end, not read once.
    expect(await job.getAttribute("data-live")).toBe("ended")
    expect(await job.locator("[data-field=announce]").textContent()).toMatch(/^Done: .+ is ready to save\.$/)

    const answered = await apiRequest(e2e.stack.baseUrl, "GET", `/jobs/${jobId}`, { key: secondKey })
    const result = answered.body.data.result
    const save = job.locator("[data-action=save]")
    expect(await save.textContent()).toContain(result.filename)
    const [saved] = await Promise.all([page.waitForEvent("download"), save.click()])
    expect(saved.suggestedFilename()).toBe(result.filename)
    const bytes = await readFile(await saved.path())
    const served = Buffer.from(await (await fetch(result.download_url)).arrayBuffer())
    expect(bytes.length).toBe(result.size_bytes)
    expect(bytes.equals(served)).toBe(true)
    expect(bytes.subarray(4, 8).toString("latin1")).toBe("ftyp")
  })

  it("says why in words: an unsupported site, and two busy slots with a countdown; Cancel on the Jobs tab frees them", async () => {
    await downloadTab()
    const youtube = "https://www.youtube.com/watch?v=dQw4w9WgXcQ"
    await lookUp(youtube)
    expect(await page.getAttribute("[data-refusal]", "data-refusal")).toBe("unsupported_platform")
    expect(await page.textContent("[data-refusal]")).toContain("This site is not supported.")
    expect(await focused()).toBe("unsupported_platform")
    expect(await page.inputValue("#media-url")).toBe(youtube)

    const running: Array<string> = []
    for (let i = 0; i < 2; i++) {
      await downloadTab()
      await lookUp(e2e.media.urls.slow)
      running.push(await download())
    }
    const job = page.locator("section.job")
    await eventually(
      async () => `${await job.getAttribute("data-status")}:${await job.locator("[data-field=progress]").textContent()}`,
      (now) => /^processing:([1-9]|[1-9]\d)%$/.test(now),
      () => `the slow download under way\n${e2e.stack.logs()}`,
      60_000,
      100
    )
    // The picture in the README (docs/dashboard-download-progress.png) is a copy of this one.
    await screenshot(page, "dashboard-download-progress")

    await downloadTab()
    await lookUp(e2e.media.urls.slow)
    await Promise.all([page.waitForEvent("load"), page.click("form.download-form button[type=submit]")])
    expect(await page.getAttribute("[data-refusal]", "data-refusal")).toBe("concurrency_limit_exceeded")
    expect(await page.textContent("[data-refusal]")).toContain("The project's download slots are all busy.")
    expect(await focused()).toBe("concurrency_limit_exceeded")
    expect(await page.isDisabled("form.download-form button[type=submit]")).toBe(true)
    const left = await eventually(
      async () => Number(await page.getAttribute("[data-countdown]", "data-left")),
      (seconds) => seconds < 5,
      "the Retry-After countdown",
      5_000
    )
    expect(await page.textContent("[data-countdown]")).toBe(`You can try again in ${left} s.`)

    // The Jobs tab names each job by its media and offers what fits: Save for the file above, Cancel for these two.
    await Promise.all([page.waitForURL(/\/jobs$/), page.click("nav.tabs >> text=Jobs")])
    // The tab is drawn from the job read model, which the aggregator writes a moment after the job completed: a page
    // drawn before that is drawn again.
    await eventually(
      async () => {
        const count = await page.locator("tr[data-status=completed] [data-field=title]", { hasText: clipPage.title }).count()
        if (count === 0) await page.reload()
        return count
      },
      (count) => count === 1,
      "the Jobs tab to list the completed job"
    )
    expect(await page.locator("tr[data-status=completed]", { hasText: clipPage.title }).locator("[data-action=save]").count()).toBe(1)
    // The picture in docs/operations.md (docs/dashboard-jobs.png) is a copy of this one.
    await screenshot(page, "dashboard-jobs-media")
    for (const jobId of running) {
      const row = page.locator(`tr[data-job-id="${jobId}"]`)
      expect(await row.locator("[data-field=title]").textContent()).not.toBe(e2e.media.urls.slow)
      await Promise.all([page.waitForEvent("load"), row.locator("[data-action=cancel] button").click()])
      await eventually(
        async () => `${await row.getAttribute("data-status")} ${await row.locator("[data-field=error]").textContent()}`,
        (now) => now.startsWith("failed canceled:"),
        `job ${jobId} canceled on the Jobs tab`
      )
    }
  })

  it("queues a playlist's chosen entries as one batch", async () => {
    await downloadTab()
    await lookUp(e2e.media.urls.podcastFeed, true)
    const entries = page.locator("input[name=entries]")
    expect(await entries.count()).toBe(podcastFeedEpisodes)
    expect(await entries.evaluateAll((boxes) => boxes.every((box) => (box as any).checked === true))).toBe(true)
    await entries.first().uncheck()
    await page.selectOption("#batch-format", "audio_m4a")
    await Promise.all([page.waitForURL(/\/download\/batches\/bat_/), page.click("text=Download the chosen entries")])
    expect(await page.textContent("#batch-title")).toBe(`A batch of ${podcastFeedEpisodes - 1} entries (audio_m4a)`)
    expect(await focused()).toBe("batch-title")
    // The chosen entries only, each given a job as the project's slots allow (the batches e2e spec follows them to the end).
    const statuses = await eventually(
      async () => {
        await page.reload()
        return page.locator("tr[data-entry-id]").evaluateAll((rows) => rows.map((row) => (row as any).dataset.status as string))
      },
      (now) => now.length === podcastFeedEpisodes - 1 && now.every((status) => status === "queued" || status === "completed"),
      () => `every chosen entry queued\n${e2e.stack.logs()}`,
      30_000,
      250
    )
    expect(statuses).toHaveLength(podcastFeedEpisodes - 1)
  })

  it("the share target and the bookmarklet open the Download tab with the link filled in", async () => {
    const manifest = (await (await fetch(`${origin}/dashboard/manifest.webmanifest`)).json()) as {
      readonly share_target: { readonly action: string; readonly params: Readonly<Record<"title" | "text" | "url", string>> }
    }
    const { action, params } = manifest.share_target
    // As an Android share sheet sends it: a title, and the link inside the text.
    const shared = new URL(action, origin)
    shared.searchParams.set(params.title, clipPage.title)
    shared.searchParams.set(params.text, `Look at this ${e2e.media.urls.page}`)
    await page.goto(shared.href)
    expect(new URL(page.url()).pathname).toMatch(/\/download$/)
    expect(await page.inputValue("#media-url")).toBe(e2e.media.urls.page)
    // Chromium reads the manifest without a complaint and would install the app (tests run in an incognito-like profile).
    const cdp = await context.newCDPSession(page)
    expect((await cdp.send("Page.getAppManifest")).errors).toEqual([])
    const { installabilityErrors } = await cdp.send("Page.getInstallabilityErrors")
    expect(installabilityErrors.filter((error) => error.errorId !== "in-incognito")).toEqual([])
    await cdp.detach()

    // Run on a page of another site (localhost is not 127.0.0.1's site), whose navigation carries no SameSite=Strict cookie.
    const bookmarklet = (await page.getAttribute("a.bookmarklet", "href")) ?? ""
    const elsewhere = e2e.media.urls.page.replace("127.0.0.1", "localhost")
    await page.goto(elsewhere)
    await Promise.all([page.waitForURL(/\/download\?url=/), page.evaluate(bookmarklet.replace(/^javascript:/, ""))])
    expect(await page.inputValue("#media-url")).toBe(elsewhere)
    expect(await browserTraces()).not.toContain("svc_")
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
    await downloadTab()
    await lookUp(e2e.media.urls.page)
    const downloadOverflow = await page.evaluate(
      (): number => (globalThis as any).document.documentElement.scrollWidth - (globalThis as any).document.documentElement.clientWidth
    )
    expect(downloadOverflow).toBeLessThanOrEqual(0)
    await screenshot(page, "dashboard-download-phone")
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
