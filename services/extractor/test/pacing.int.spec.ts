// Pacing through the real extractor: every yt-dlp start takes a start key, resolves wait for a run key like downloads,
// and the runs bucket's lifetime is its creator's, whatever another extractor is configured with.
import { jetstream, jetstreamManager } from "@nats-io/jetstream"
import { Kvm } from "@nats-io/kv"
import { connect } from "@nats-io/transport-node"
import { ConfigProvider, Effect, Layer, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type MediaServer, startMediaServer } from "../../../test/support/MediaServer.ts"
import { startNatsServer } from "../../../test/support/NatsServer.ts"
import { RUNS_BUCKET, STARTS_BUCKET } from "../src/pacing/PacingBuckets.ts"
import { PlatformPacing } from "../src/pacing/PlatformPacing.ts"
import { type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

let media: MediaServer
beforeAll(async () => {
  media = await startMediaServer()
})
afterAll(async () => {
  await media?.close()
})

/** The runs that hold a start key now (each key's value names its run: a job id, or resolve-<uuid>). */
const startKeyHolders = async (harness: ExtractorHarness) => {
  const kv = await new Kvm(jetstream(harness.client)).open(STARTS_BUCKET)
  const holders: Array<string> = []
  for await (const key of await kv.keys()) {
    const entry = await kv.get(key)
    if (entry !== null && entry.operation === "PUT") holders.push((entry.json() as { runId: string }).runId)
  }
  return holders
}

const keysOf = async (harness: ExtractorHarness, bucket: string) => {
  const kv = await new Kvm(jetstream(harness.client)).open(bucket)
  const keys: Array<string> = []
  for await (const key of await kv.keys()) keys.push(key)
  return keys
}

describe("start keys", () => {
  let harness: ExtractorHarness
  beforeAll(async () => {
    harness = await startExtractorHarness({
      EGRESS_ALLOW: media.hostPort,
      PLATFORM_MAX_STARTS_PER_MINUTE: "generic=50",
      DOWNLOAD_RETRIES: "2",
      DOWNLOAD_RETRY_BASE_SECONDS: "0.2"
    })
  })
  afterAll(async () => {
    await harness?.close()
  })

  it("a download retried inside its run takes one start key per yt-dlp start", async () => {
    const { projectId, jobId } = await harness.queueJob(media.urls.flaky("paced", 2), "video_best")
    const events = await harness.waitForEnd(projectId, jobId)
    expect(events.at(-1)?._tag, JSON.stringify(events)).toBe("JobCompleted")
    expect((await startKeyHolders(harness)).filter((holder) => holder === jobId)).toHaveLength(3)
  })

  it("a download retried with impersonation after an anti-bot challenge takes a key for each of its two starts", async () => {
    const { projectId, jobId } = await harness.queueJob(media.urls.antiBot("paced"), "video_best")
    const events = await harness.waitForEnd(projectId, jobId, 120_000)
    expect(events.at(-1)?._tag, JSON.stringify(events)).toBe("JobCompleted")
    expect((await startKeyHolders(harness)).filter((holder) => holder === jobId)).toHaveLength(2)
  })

  it("a resolve takes a start key too", async () => {
    const before = (await startKeyHolders(harness)).filter((holder) => holder.startsWith("resolve-")).length
    expect((await harness.resolve(`${media.urls.mp4}?paced`))._tag).toBe("ResolveSucceeded")
    expect((await startKeyHolders(harness)).filter((holder) => holder.startsWith("resolve-")).length - before).toBe(1)
  })
})

describe("resolves are paced", () => {
  let harness: ExtractorHarness
  beforeAll(async () => {
    harness = await startExtractorHarness({
      EGRESS_ALLOW: media.hostPort,
      PLATFORM_MAX_CONCURRENT: "generic=1",
      PACING_RETRY_SECONDS: "0.2",
      RESOLVE_TIMEOUT_SECONDS: "10"
    })
  })
  afterAll(async () => {
    await harness?.close()
  })

  it("a resolve waits while the platform's one run key is held, and runs once it is free", async () => {
    const runs = await new Kvm(jetstream(harness.client)).open(RUNS_BUCKET)
    const revision = await runs.create("generic.0", JSON.stringify({ holder: "another extractor" }))
    const waiting = `${media.urls.mp4}?waits`
    expect(await harness.resolve(waiting)).toMatchObject({ _tag: "ResolveRejected", code: "extraction_timeout" })
    // It never reached the platform: it waited for the key until its timeout.
    expect(media.requestCount(waiting)).toBe(0)
    await runs.delete("generic.0", { previousSeq: revision })
    // Once the key is free the resolve runs: it reaches the platform (a removed media, a quick answer; on a slow
    // machine its reply may still be the timeout, which is not what this checks).
    const gone = `${media.urls.gone}?runs`
    await harness.resolve(gone)
    expect(media.requestCount(gone)).toBeGreaterThan(0)
    // The resolve's own key is released when it ends.
    expect(await keysOf(harness, RUNS_BUCKET)).toEqual([])
  })
})

describe("the runs bucket's lifetime", () => {
  it("is set by the extractor that creates it; one configured otherwise neither resets it nor renews on its own", async () => {
    const nats = await startNatsServer()
    try {
      const openPacing = (leaseSeconds: string) =>
        Effect.runPromise(
          Effect.gen(function* () {
            yield* PlatformPacing
          }).pipe(
            Effect.provide(
              PlatformPacing.layer.pipe(
                Layer.provide(NatsClient.layer),
                Layer.provide(
                  ConfigProvider.layer(
                    ConfigProvider.fromEnvRecord({
                      NATS_URL: nats.url,
                      PLATFORM_MAX_CONCURRENT: "generic=1",
                      PACING_LEASE_SECONDS: leaseSeconds
                    })
                  )
                ),
                Layer.provide(Layer.succeed(References.MinimumLogLevel, "Error"))
              )
            )
          )
        )
      await openPacing("30")
      await openPacing("10")
      const client = await connect({ servers: nats.url })
      const info = await (await jetstreamManager(client)).streams.info(`KV_${RUNS_BUCKET}`)
      await client.close()
      expect(info.config.max_age / 1_000_000).toBe(30_000)
    } finally {
      await nats.close()
    }
  })
})
