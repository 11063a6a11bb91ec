// End to end, one project cannot stall another's subscriptions: a noisy project follows 24 feeds whose every answer
// stalls (each of its checks holds a check until yt-dlp gives up) and holds event streams open that it never reads; a
// quiet project subscribes at once, its check now downloads the new entry within a minute, its webhooks arrive and its
// usage counts the job. The noisy project's checks run one at a time (docs/events.md, fair checks).
import { request } from "node:http"
import { ConfigProvider, Layer, ManagedRuntime } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { InMemorySubscriptionReadModel } from "@mds/shared/readmodel/memory/InMemorySubscriptionReadModel"
import { eventually } from "../support/Eventually.ts"
import { createSubscription } from "../support/Subscriptions.ts"
import { startWebhookReceiver, type WebhookReceiver } from "../support/WebhookReceiver.ts"
import { apiRequest } from "./ApiClient.ts"
import { useMediaStack } from "./MediaStack.ts"

const NOISY_FEEDS = 24
const STALLED_STREAMS = 4

let receiver: WebhookReceiver

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

/**
 * The noisy project's subscriptions, written as POST /v1/subscriptions writes them: through the API each would first
 * resolve its feed (which stalls), and 24 resolves are setup, not the subject.
 */
const subscribeNoisily = async (projectId: string, urls: ReadonlyArray<string>) => {
  const writer = ManagedRuntime.make(
    SubscriptionStates.layer.pipe(
      Layer.provide(InMemorySubscriptionReadModel.layer),
      Layer.provideMerge(JetStreamEventStore),
      Layer.provideMerge(NatsClient.layer),
      Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ NATS_URL: e2e.stack.nats.url }))),
      Layer.orDie
    )
  )
  try {
    for (const url of urls) await writer.runPromise(createSubscription(projectId, url))
  } finally {
    await writer.dispose()
  }
}

/** Event streams of the project opened from the start of its history and never read (paused at the first bytes). */
const openStalledStreams = (baseUrl: string, key: string, count: number) =>
  Promise.all(
    Array.from(
      { length: count },
      () =>
        new Promise<() => void>((resolve, reject) => {
          const req = request(`${baseUrl}/jobs/events`, {
            headers: { "x-api-key": key, "last-event-id": "1", accept: "text/event-stream" }
          })
          req.on("response", (res) => {
            if (res.statusCode !== 200) reject(new Error(`event stream answered ${res.statusCode}`))
            res.pause()
            resolve(() => req.destroy())
          })
          req.on("error", reject)
          req.end()
        })
    )
  )

describe("a noisy neighbour", () => {
  it("does not hold up another project's subscription: created at once, its check now downloads within a minute, webhooks and usage follow", async () => {
    const noisy = e2e.projectId
    const noisyFeeds = Array.from({ length: NOISY_FEEDS }, (_, i) => `noisy-${i}`)
    for (const feed of noisyFeeds) e2e.media.setFeed(feed, { episodes: 3, stalled: true })
    await subscribeNoisily(
      noisy,
      noisyFeeds.map((feed) => e2e.media.growingFeed(feed))
    )
    // One of the noisy checks now holds its feed.
    await eventually(
      async () => e2e.media.heldRequests(),
      (held) => held >= 1,
      () => `a noisy check waiting on its feed\n${e2e.stack.logs()}`,
      30_000
    )
    const streams = await openStalledStreams(e2e.stack.baseUrl, e2e.key, STALLED_STREAMS)
    let mostHeld = 0
    const sample = setInterval(() => {
      mostHeld = Math.max(mostHeld, e2e.media.heldRequests())
    }, 100)
    try {
      const { projectId: quiet, key } = await e2e.stack.provisionKey()
      await e2e.stack.cli(["webhook", "set", "--project", quiet, "--url", receiver.url])
      const as = (method: string, path: string, json?: unknown) =>
        apiRequest(e2e.stack.baseUrl, method, path, json === undefined ? { key } : { key, json })
      const read = async (id: string) => {
        const response = await as("GET", `/subscriptions/${id}`)
        expect(response.status, e2e.context(response)).toBe(200)
        return response.body.data
      }

      e2e.media.setFeed("quiet", { episodes: 1 })
      const created = await as("POST", "/subscriptions", { url: e2e.media.growingFeed("quiet"), format: "audio_m4a" })
      expect(created.status, e2e.context(created)).toBe(201)
      const id = created.body.data.id
      const baseline = await eventually(
        () => read(id),
        (s) => s.last_check !== null,
        () => `the quiet subscription's first check\n${e2e.stack.logs()}`,
        30_000
      )
      expect(baseline.last_check).toMatchObject({ found: 1, new: 0 })

      e2e.media.setFeed("quiet", { episodes: 2 })
      const askedAt = Date.now()
      const checked = await as("POST", `/subscriptions/${id}/check`)
      expect(checked.status, e2e.context(checked)).toBe(202)
      const jobId = (
        await eventually(
          () => e2e.inspector.jobIds(quiet),
          (ids) => ids.length === 1,
          () => `the new entry's job\n${e2e.stack.logs()}`,
          60_000
        )
      )[0]!
      const job = await eventually(
        async () => (await as("GET", `/jobs/${jobId}`)).body.data ?? null,
        (j) => j?.status === "completed" || j?.status === "failed",
        () => `the new entry downloaded\n${e2e.stack.logs()}`,
        60_000
      )
      expect(job.status).toBe("completed")
      expect(Date.now() - askedAt).toBeLessThan(60_000)

      // Its webhooks arrived: which entry was queued as which job, and the job's completion.
      const hooks = await eventually(
        async () => receiver.received.map((delivery) => ({ type: String(delivery.headers["mds-event"]), body: JSON.parse(delivery.body) })),
        (all) =>
          all.some((hook) => hook.type === "subscription.entries_queued" && hook.body.data.subscription.id === id) &&
          all.some((hook) => hook.type === "job.completed" && hook.body.data.job.id === jobId),
        "the quiet project's webhooks",
        30_000
      )
      const queuedHook = hooks.find((hook) => hook.type === "subscription.entries_queued")
      expect(queuedHook?.body.data.entries.map((entry: { job_id: string }) => entry.job_id)).toEqual([jobId])
      // Its usage counts the job and its bytes.
      await eventually(
        async () => (await as("GET", "/usage")).body.data,
        (usage) => usage?.totals.jobs.total === 1 && usage.totals.bytes_downloaded > 0,
        "the quiet project's usage",
        30_000
      )
      // ... and the subscription knows the entry downloaded.
      await eventually(
        () => read(id),
        (s) => s.entries.downloaded === 1,
        "the quiet subscription's entry downloaded",
        30_000
      )
      // The noise went on all along, one check of the noisy project at a time.
      expect(noisyFeeds.filter((feed) => e2e.media.requestCount(e2e.media.growingFeed(feed)) > 0).length).toBeGreaterThanOrEqual(1)
      expect(mostHeld).toBe(1)
    } finally {
      clearInterval(sample)
      for (const close of streams) close()
      for (const feed of noisyFeeds) e2e.media.setFeed(feed, { stalled: false, failing: true })
    }
  }, 150_000)
})
