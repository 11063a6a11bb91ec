// Extension end to end: a subscription to a feed that grows; entries appended after it was made are downloaded, once,
// and the project's webhook hears which entries were queued as which jobs; entries held back by the project's quota wait
// (and the subscription says so) until it is raised and a check runs, then are downloaded.
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { eventually } from "../support/Eventually.ts"
import { startWebhookReceiver, verifyWithPython, type WebhookReceiver } from "../support/WebhookReceiver.ts"
import { apiRequest } from "./ApiClient.ts"
import { useMediaStack } from "./MediaStack.ts"

let receiver: WebhookReceiver
let secret: string

beforeAll(async () => {
  receiver = await startWebhookReceiver()
})

afterAll(async () => {
  await receiver?.close()
})

const e2e = useMediaStack({
  inspect: true,
  // A reconcile every 2 s: what became of an entry (its job ended) is recorded within a tick.
  stack: (media) => ({ env: { EGRESS_ALLOW: `${media.hostPort},${receiver.hostPort}`, SUBSCRIPTION_TICK_SECONDS: "2" } })
})

beforeAll(async () => {
  // Every event type by default, the subscription ones included.
  secret = await e2e.stack.cli(["webhook", "set", "--project", e2e.projectId, "--url", receiver.url])
})

const received = (type: string) =>
  receiver.received
    .filter((delivery) => delivery.headers["mds-event"] === type)
    .map((delivery) => ({ delivery, body: JSON.parse(delivery.body) }))

const call = (method: string, path: string, json?: unknown) =>
  apiRequest(e2e.stack.baseUrl, method, path, json === undefined ? { key: e2e.key } : { key: e2e.key, json })

const subscription = async (id: string) => {
  const response = await call("GET", `/subscriptions/${id}`)
  expect(response.status, e2e.context(response)).toBe(200)
  return response.body.data
}

/** Waits for a check recorded after `after` (an ISO time, or null before the first). */
const checkedAfter = (id: string, after: string | null) =>
  eventually(
    () => subscription(id),
    (s) => s.last_check !== null && (after === null || s.last_check.at > after),
    () => `a check of ${id} after ${after}\n${e2e.stack.logs()}`,
    30_000
  )

const episodeUrl = (feed: string, episode: number) => {
  const url = new URL(e2e.media.growingFeed(feed))
  return `${url.origin}/media/tone.m4a?feed=${feed}&episode=${episode}`
}

describe("subscriptions", () => {
  it("downloads the two entries appended after subscribing, once; a second check queues nothing", async () => {
    const feed = "e2e-growing"
    e2e.media.setFeed(feed, { episodes: 2 })
    const created = await call("POST", "/subscriptions", { url: e2e.media.growingFeed(feed), format: "audio_m4a" })
    expect(created.status, e2e.context(created)).toBe(201)
    const id = created.body.data.id

    // The first check runs at once: what the feed lists now is the baseline (backfill 0), nothing is queued.
    const baseline = await checkedAfter(id, null)
    expect(baseline.last_check).toMatchObject({ found: 2, new: 0, queued: 0 })
    expect(baseline.status).toBe("active")

    e2e.media.setFeed(feed, { episodes: 4 })
    const checkNow = await call("POST", `/subscriptions/${id}/check`)
    expect(checkNow.status, e2e.context(checkNow)).toBe(202)
    const second = await checkedAfter(id, baseline.last_check.at)
    expect(second.last_check).toMatchObject({ found: 4, new: 2, filtered: 0, queued: 2 })

    // Both entries became jobs of the project, fed through the batch feeder, and completed.
    const jobIds = await eventually(
      () => e2e.inspector.jobIds(e2e.projectId),
      (ids) => ids.length === 2,
      "the two queued entries' jobs"
    )
    const jobs = await eventually(
      // A job's read may lag its first event by a moment (404 until projected).
      () => Promise.all(jobIds.map(async (jobId) => (await call("GET", `/jobs/${jobId}`)).body.data ?? null)),
      (all) => all.every((job) => job?.status === "completed" || job?.status === "failed"),
      () => `both jobs ended\n${e2e.stack.logs()}`,
      60_000
    )
    expect(
      jobs.map((job) => job.status),
      JSON.stringify(jobs)
    ).toEqual(["completed", "completed"])
    expect(jobs.every((job) => job.requested_format === "audio_m4a" && job.result.size_bytes > 0)).toBe(true)
    // The new episodes' files were fetched; the baseline's never were.
    expect(e2e.media.requestCount(episodeUrl(feed, 3))).toBeGreaterThan(0)
    expect(e2e.media.requestCount(episodeUrl(feed, 4))).toBeGreaterThan(0)
    expect(e2e.media.requestCount(episodeUrl(feed, 1)) + e2e.media.requestCount(episodeUrl(feed, 2))).toBe(0)

    // The project's archive holds the two entries, claimed by this subscription.
    const archive = await e2e.inspector.archiveEntries(e2e.projectId)
    expect(archive.map((entry) => entry.subscriptionId)).toEqual([id, id])
    expect(new Set(archive.map((entry) => entry.archiveKey)).size).toBe(2)

    // The webhook named the two entries and the jobs they became, signed with the endpoint's secret.
    const queuedHooks = await eventually(
      async () => received("subscription.entries_queued"),
      (hooks) => hooks.length >= 1,
      "subscription.entries_queued"
    )
    const [queuedHook, ...more] = queuedHooks
    expect(more).toEqual([])
    expect(verifyWithPython(secret, queuedHook!.delivery)).toBe("valid")
    expect(queuedHook!.body.data.subscription.id).toBe(id)
    expect(queuedHook!.body.data.entries.map((e: any) => e.title)).toEqual(["Episode 4", "Episode 3"])
    expect(queuedHook!.body.data.entries.map((e: any) => e.job_id).sort()).toEqual([...jobIds].sort())
    await eventually(
      async () => received("job.completed").map(({ body }) => body.data.job.id),
      (ids) => jobIds.every((jobId) => ids.includes(jobId)),
      "job.completed for both jobs"
    )

    // Checked again with nothing new: nothing queued, no further job, the archive unchanged.
    expect((await call("POST", `/subscriptions/${id}/check`)).status).toBe(202)
    const third = await checkedAfter(id, second.last_check.at)
    expect(third.last_check).toMatchObject({ found: 4, new: 0, queued: 0 })
    expect(await e2e.inspector.jobIds(e2e.projectId)).toEqual(jobIds)
    expect(await e2e.inspector.archiveEntries(e2e.projectId)).toEqual(archive)
    expect(received("subscription.entries_queued")).toHaveLength(1)
  }, 90_000)

  it("a quota-held subscription's entries wait, said in GET /subscriptions/{id}, and are downloaded once the quota is raised and a check runs", async () => {
    // A project of its own: its quota is this test's subject.
    const { projectId, key } = await e2e.stack.provisionKey()
    const as = (method: string, path: string, json?: unknown) =>
      apiRequest(e2e.stack.baseUrl, method, path, json === undefined ? { key } : { key, json })
    const read = async (id: string) => {
      const response = await as("GET", `/subscriptions/${id}`)
      expect(response.status, e2e.context(response)).toBe(200)
      return response.body.data
    }
    await e2e.stack.cli(["project", "quota", projectId, "--jobs-per-day", "0"])
    const feed = "e2e-held"
    e2e.media.setFeed(feed, { episodes: 3 })
    const created = await as("POST", "/subscriptions", { url: e2e.media.growingFeed(feed), format: "audio_m4a", backfill: 2 })
    expect(created.status, e2e.context(created)).toBe(201)
    const id = created.body.data.id

    // The first check found the two newest entries and held them back: nothing queued, both waiting for the quota.
    const held = await eventually(
      () => read(id),
      (s) => s.last_check !== null,
      () => `the first check of ${id}\n${e2e.stack.logs()}`,
      30_000
    )
    expect(held.last_check).toMatchObject({ found: 3, new: 2, queued: 0 })
    expect(held.entries).toEqual({ in_flight: 0, waiting: 2, downloaded: 0, given_up: 0 })
    expect(held.pending_entries.map((entry: any) => [entry.title, entry.batch_id, entry.waiting_for?.code])).toEqual([
      ["Episode 3", null, "quota_exceeded"],
      ["Episode 2", null, "quota_exceeded"]
    ])
    expect(await e2e.inspector.jobIds(projectId)).toEqual([])

    await e2e.stack.cli(["project", "quota", projectId, "--jobs-per-day", "unlimited"])
    // Checked now (again while the services still remember the old quota, for a few seconds) until the entries go.
    let lastAt = held.last_check.at
    const queued = await eventually(
      async () => {
        const now = await read(id)
        if (now.entries.waiting > 0 && now.last_check.at >= lastAt) {
          lastAt = now.last_check.at
          const checked = await as("POST", `/subscriptions/${id}/check`)
          expect(checked.status, e2e.context(checked)).toBe(202)
        }
        return now
      },
      (s) => s.entries.waiting === 0,
      () => `the held entries queued\n${e2e.stack.logs()}`,
      45_000,
      1_000
    )
    expect(queued.last_check.queued).toBe(2)
    const done = await eventually(
      () => read(id),
      (s) => s.entries.downloaded === 2,
      () => `both entries downloaded\n${e2e.stack.logs()}`,
      90_000,
      1_000
    )
    expect(done.entries).toEqual({ in_flight: 0, waiting: 0, downloaded: 2, given_up: 0 })
    expect(done.pending_entries).toEqual([])
    const jobIds = await e2e.inspector.jobIds(projectId)
    expect(jobIds).toHaveLength(2)
    for (const jobId of jobIds) expect((await as("GET", `/jobs/${jobId}`)).body.data.status).toBe("completed")
    expect(e2e.media.requestCount(episodeUrl(feed, 3))).toBeGreaterThan(0)
    expect(e2e.media.requestCount(episodeUrl(feed, 2))).toBeGreaterThan(0)
    expect(e2e.media.requestCount(episodeUrl(feed, 1))).toBe(0)
  }, 180_000)
})
