// The Download tab's rules over HTTP (in process, a fake extractor): it acts as the member's project through the /v1
// handlers (idempotent queueing, slots, refusals with the API's code and Retry-After), with CSRF and tenancy as every
// dashboard form; Save, Cancel and Retry; the share route (signed out, from another site, several projects), the
// manifest's share target, and "Follow" filling the Subscriptions form in. The browser flows are the e2e tier's.
import { mkdtemp, rm } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { jobCompleted, jobStarted } from "../../../../test/support/JobEvents.ts"
import { eventually } from "../../../../test/support/Eventually.ts"
import type { DashboardClient } from "../../../../test/support/DashboardClient.ts"
import { runAdminCommand } from "../../src/cli/runAdminCommand.ts"
import { startFakeExtractor } from "../GatewayHarness.ts"
import { type DashboardHarness, ORIGIN, startDashboardHarness } from "./DashboardHarness.ts"

const ADMIN = { email: "admin@example.org", password: "bootstrap-password-1" }
const EVE = { email: "eve@example.org", password: "eves-password-1234" }
const VIDEO = "https://videos.example.com/watch/1"

let h: DashboardHarness
let extractor: Awaited<ReturnType<typeof startFakeExtractor>>
let admin: DashboardClient
let projectId: string
let base: string

const projectIdIn = (html: string) => /\/dashboard\/projects\/(prj_[a-z2-7]{24})\//.exec(html)?.[1] ?? ""
const hidden = (html: string, name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1] ?? ""
const jobIdIn = (html: string) => /data-job-id="(job_[a-z2-7]{24})"/.exec(html)?.[1] ?? ""

beforeAll(async () => {
  h = await startDashboardHarness({ DASHBOARD_ADMIN_EMAIL: ADMIN.email, DASHBOARD_ADMIN_PASSWORD: ADMIN.password })
  await h.gateway.run(
    runAdminCommand({ _tag: "CreateUser", email: EVE.email, passwordFromStdin: true }, { readStdin: Effect.succeed(`${EVE.password}\n`) })
  )
  extractor = await startFakeExtractor(h.nats.url, h.gateway)
  admin = h.client()
  await admin.signIn(ADMIN.email, ADMIN.password)
  projectId = projectIdIn((await admin.post("/dashboard/projects", { name: "Videos" })).body)
  base = `/dashboard/projects/${projectId}`
})

afterAll(async () => {
  await extractor?.close()
  await h?.close()
})

/** Looks the video up; the page's download form, as the browser would send it with a format. */
const lookUp = async (url = VIDEO) => {
  const page = await admin.post(`${base}/download`, { url })
  expect(page.status, page.body).toBe(200)
  return { page, form: { media_id: hidden(page.body, "media_id"), url, request: hidden(page.body, "request"), format: "audio_m4a" } }
}

describe("the Download tab", () => {
  const queued: Array<string> = []

  it("looks a link up as the member's project and lists the media's formats", async () => {
    const { page, form } = await lookUp()
    expect(page.body).toContain('<h3 id="media-title" tabindex="-1" autofocus>A title</h3>')
    expect(page.body).toContain('value="video_best" checked')
    expect(page.body).toContain('value="audio_m4a"')
    expect(form.media_id).toMatch(/^med_/)
    expect(form.request.length).toBeGreaterThanOrEqual(32)
  })

  it("queues one job per form, however often it is sent (the form's token is the Idempotency-Key)", async () => {
    const { form } = await lookUp()
    const first = await admin.post(`${base}/download/queue`, form)
    expect(first.status, first.body).toBe(200)
    const jobId = jobIdIn(first.body)
    expect(jobId).not.toBe("")
    expect(first.body).toContain(`data-live-job="${base}/jobs/${jobId}/events"`)
    expect(jobIdIn((await admin.post(`${base}/download/queue`, form)).body)).toBe(jobId)
    queued.push(jobId)
  })

  it("refuses the third job of a project with two slots: 429, the API's code, Retry-After, the form kept", async () => {
    queued.push(jobIdIn((await admin.post(`${base}/download/queue`, (await lookUp()).form)).body))
    const { form } = await lookUp()
    const refused = await admin.post(`${base}/download/queue`, { ...form, format: "video_best" })
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).toBe("5")
    expect(refused.body).toContain('data-refusal="concurrency_limit_exceeded"')
    expect(refused.body).toContain("The project&#39;s download slots are all busy.")
    expect(refused.body).toContain('data-countdown="5"')
    expect(refused.body).toContain('value="video_best" checked')
  })

  it("cancels from the Jobs tab, which frees a slot", async () => {
    const jobId = queued[0] ?? ""
    // The tab lists the job read model, which the projection fills a moment after the job was queued.
    const jobs = await eventually(
      () => admin.get(`${base}/jobs`),
      (page) => page.body.includes(`<tr id="${jobId}"`),
      "the Jobs tab to list the queued job"
    )
    expect(jobs.body).toMatch(new RegExp(`<tr id="${jobId}"[\\s\\S]*?data-field="title">A title</a>[\\s\\S]*?/jobs/${jobId}/cancel`))
    const canceled = await admin.post(`${base}/jobs/${jobId}/cancel`, { from: "jobs" })
    expect(canceled.status).toBe(200)
    expect(canceled.body).toContain('<h2 id="jobs-title">Recent jobs</h2>')
    const page = await admin.get(`${base}/download/jobs/${jobId}`)
    expect(page.body).toContain("canceled: The job was canceled by a client of its project.")
    expect(page.body).toMatch(/<form method="post" action="[^"]+\/retry"[^>]*hidden>/)
    const again = await admin.post(`${base}/download/queue`, (await lookUp()).form)
    expect(jobIdIn(again.body)).not.toBe("")
  })

  it("says why a retry is refused, on the job's page", async () => {
    const refused = await admin.post(`${base}/jobs/${queued[0]}/retry`, {})
    expect(refused.status).toBe(409)
    expect(refused.body).toContain('data-refusal="job_canceled"')
  })

  it("Save signs the completed job's link when followed", async () => {
    const jobId = queued[1] ?? ""
    const now = Date.now()
    await h.gateway.run(
      Effect.gen(function* () {
        const store = yield* EventStore
        yield* store.append(JobEvent, jobSubject(projectId, jobId), jobStarted(jobId, now), { msgId: `${jobId}:started` })
        yield* store.append(JobEvent, jobSubject(projectId, jobId), jobCompleted(projectId, jobId, now + 1), {
          msgId: `${jobId}:completed`
        })
      })
    )
    const saved = await eventually(
      () => h.transport({ method: "GET", path: `${base}/jobs/${jobId}/file`, headers: { cookie: cookieOf(admin) } }),
      (response) => (response.headers.get("location") ?? "").includes("/v1/files/"),
      "the file link"
    )
    expect(saved.status).toBe(303)
    expect(saved.headers.get("location")).toMatch(/^http:\/\/gateway\.test\/v1\/files\/.+\?expires=\d+&signature=/)
  })

  it("shows the API's words for an unsupported site and private media", async () => {
    const youtube = await admin.post(`${base}/download`, { url: "https://www.youtube.com/watch?v=dQw4w9WgXcQ" })
    expect(youtube.status).toBe(422)
    expect(youtube.body).toContain("This site is not supported.")
    expect(youtube.body).toContain("<code>unsupported_platform</code>")
    const hiddenVideo = await admin.post(`${base}/download`, { url: "https://videos.example.com/private/7" })
    expect(hiddenVideo.status).toBe(422)
    expect(hiddenVideo.body).toContain("This video is private.")
    expect(hiddenVideo.body).toContain('data-refusal="media_unavailable"')
  })

  it("lists a playlist's entries, queues the ticked ones as a batch, and Follow fills the Subscriptions form in", async () => {
    const feed = "https://podcasts.example.com/feed/weekly.xml"
    const page = await admin.post(`${base}/download`, { url: feed, playlist: "1" })
    expect(page.body).toContain('name="entries" value="ent_1" checked')
    expect(page.body).toContain('name="entries" value="ent_2" checked')
    const batch = await admin.post(`${base}/download/batch`, {
      media_id: hidden(page.body, "media_id"),
      url: feed,
      format: "audio_mp3",
      entries: ["ent_2"]
    })
    expect(batch.status, batch.body).toBe(200)
    expect(batch.body).toContain("A batch of 1 entry (audio_mp3)")
    expect(batch.body).toContain('data-entry-id="ent_2"')
    const follow = /href="([^"]+subscriptions\?[^"]+)"/.exec(page.body)?.[1]?.replaceAll("&amp;", "&") ?? ""
    const form = await admin.get(follow)
    expect(form.body).toContain(`id="subscription-url" name="url" required inputmode="url" maxlength="2048" value="${feed}"`)
  })
})

const cookieOf = (client: DashboardClient) => [...client.cookies].map(([name, value]) => `${name}=${value}`).join("; ")

describe("the Download tab's guards", () => {
  it("a form without the session's CSRF token, or from another site, queues nothing", async () => {
    const { form } = await lookUp()
    expect((await admin.post(`${base}/download/queue`, { ...form, _csrf: "forged" })).status).toBe(403)
    expect((await admin.post(`${base}/download/queue`, form, { origin: "https://evil.example" })).status).toBe(403)
  })

  it("a user outside the project sees neither its tab nor its jobs", async () => {
    const eve = h.client()
    await eve.signIn(EVE.email, EVE.password)
    expect((await eve.get(`${base}/download`)).status).toBe(404)
    expect((await eve.post(`${base}/download`, { url: VIDEO })).status).toBe(404)
    const jobs = await admin.get(`${base}/jobs`)
    const jobId = jobIdIn(jobs.body)
    expect((await eve.get(`${base}/download/jobs/${jobId}`)).status).toBe(404)
    expect((await eve.get(`${base}/jobs/${jobId}/file`)).status).toBe(404)
  })
})

describe("the share route and the installable app", () => {
  it("sends a shared link to the only project's Download tab, filled in", async () => {
    const shared = await h.transport({
      method: "GET",
      path: `/dashboard/share?${new URLSearchParams({ title: "A clip", text: `Look at this ${VIDEO}` })}`,
      headers: { cookie: cookieOf(admin) }
    })
    expect(shared.status).toBe(303)
    expect(shared.headers.get("location")).toBe(`${base}/download?${new URLSearchParams({ url: VIDEO })}`)
    const tab = await admin.get(shared.headers.get("location") ?? "")
    expect(tab.body).toContain(`name="url" type="url" inputmode="url" required maxlength="2048" value="${VIDEO}"`)
  })

  it("signed out, sign-in comes back to the shared link", async () => {
    const path = `/dashboard/share?${new URLSearchParams({ url: VIDEO })}`
    const out = await h.transport({ method: "GET", path, headers: {} })
    expect(out.status).toBe(303)
    const login = out.headers.get("location") ?? ""
    expect(login).toBe(`/dashboard/login?${new URLSearchParams({ next: `/dashboard/share?${new URLSearchParams({ url: VIDEO })}` })}`)
    const client = h.client()
    expect((await client.get(login)).body).toContain('name="next" value="/dashboard/share?url=')
    // The client follows the sign-in's 303 (to the share route), which sends it on to the tab.
    const next = new URL(login, ORIGIN).searchParams.get("next") ?? ""
    const signedIn = await client.post("/dashboard/login", { email: ADMIN.email, password: ADMIN.password, next })
    expect(signedIn.status).toBe(303)
    expect(signedIn.headers.get("location")).toBe(`${base}/download?${new URLSearchParams({ url: VIDEO })}`)
  })

  it("from another site (no SameSite=Strict cookie), the page continues from here, where the cookie goes along", async () => {
    const path = `/dashboard/share?${new URLSearchParams({ project: projectId, url: VIDEO })}`
    const page = await h.transport({ method: "GET", path, headers: { "sec-fetch-site": "cross-site" } })
    expect(page.status).toBe(200)
    expect(page.body).toContain(`<meta http-equiv="refresh" content="0; url=${path.replaceAll("&", "&amp;")}">`)
  })

  it("with several projects, the user chooses; the bookmarklet's project is taken at once", async () => {
    const other = projectIdIn((await admin.post("/dashboard/projects", { name: "Podcasts" })).body)
    await eventually(
      () => h.transport({ method: "GET", path: `/dashboard/share?url=${encodeURIComponent(VIDEO)}`, headers: { cookie: cookieOf(admin) } }),
      (response) => response.status === 200,
      "the project list with both projects"
    ).then((choose) => {
      expect(choose.body).toContain("Download with which project?")
      expect(choose.body).toContain(`/dashboard/projects/${other}/download?url=`)
    })
    const named = await h.transport({
      method: "GET",
      path: `/dashboard/share?${new URLSearchParams({ project: other, url: VIDEO })}`,
      headers: { cookie: cookieOf(admin) }
    })
    expect(named.headers.get("location")).toBe(`/dashboard/projects/${other}/download?${new URLSearchParams({ url: VIDEO })}`)
    expect((await admin.get(`${base}/download`)).body).toContain(
      `javascript:void(location.href=&#39;${ORIGIN}/dashboard/share?project=${projectId}&amp;url=&#39;+encodeURIComponent(location.href))`
    )
  })

  it("serves the manifest with its share target, and pages link it", async () => {
    const manifest = await h.transport({ method: "GET", path: "/dashboard/manifest.webmanifest", headers: {} })
    expect(manifest.headers.get("content-type")).toBe("application/manifest+json")
    expect(JSON.parse(manifest.body).share_target).toEqual({
      action: "/dashboard/share",
      method: "GET",
      enctype: "application/x-www-form-urlencoded",
      params: { title: "title", text: "text", url: "url" }
    })
    const page = await admin.get(`${base}/download`)
    expect(page.body).toContain('<link rel="manifest" href="/dashboard/manifest.webmanifest">')
    expect(page.headers.get("content-security-policy")).toContain("manifest-src 'self'")
  })
})

describe("the Download tab's destination", () => {
  it("offers the project's destinations; a download into one is queued with the destination and the template", async () => {
    const folder = await mkdtemp(join(tmpdir(), "mds-dashboard-download-library-"))
    try {
      const library = projectIdIn((await admin.post("/dashboard/projects", { name: "Library" })).body)
      const libraryBase = `/dashboard/projects/${library}`
      const destinationId = String(
        await h.gateway.run(runAdminCommand({ _tag: "AddFolderDestination", projectId: library, name: "Films", path: folder }))
      )
      const page = await admin.post(`${libraryBase}/download`, { url: VIDEO })
      expect(page.body).toContain(`<option value="${destinationId}">Films</option>`)
      const form = { media_id: hidden(page.body, "media_id"), url: VIDEO, request: hidden(page.body, "request"), format: "audio_m4a" }

      // A template the API refuses comes back with the API's words and what was typed.
      const refused = await admin.post(`${libraryBase}/download/queue`, { ...form, destination: destinationId, path: "../{title}.{ext}" })
      expect(refused.status).toBe(422)
      expect(refused.body).toContain('data-refusal="invalid_path_template"')
      expect(refused.body).toContain('value="../{title}.{ext}"')
      expect(refused.body).toContain(`<option value="${destinationId}" selected>Films</option>`)

      const queued = await admin.post(`${libraryBase}/download/queue`, { ...form, destination: destinationId, path: "{title}.{ext}" })
      const jobId = jobIdIn(queued.body)
      expect(jobId, queued.body).not.toBe("")
      const job = await h.gateway.run(Effect.flatMap(JobStates, (states) => states.current(library, jobId)))
      expect(job.state?.options?.delivery).toEqual({ destinationId, pathTemplate: "{title}.{ext}", sidecars: [] })
    } finally {
      await rm(folder, { recursive: true, force: true })
    }
  })

  it("offers no destination field to a project without one", async () => {
    const { page } = await lookUp()
    expect(page.body).not.toContain('name="destination"')
  })
})
