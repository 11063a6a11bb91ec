// A transient failure retried automatically: a media server that answers 503 twice, then the file, through the real
// extractor (yt-dlp, no retries inside a run) and the aggregator's automatic retries, with a short backoff.
import { readdir } from "node:fs/promises"
import { join } from "node:path"
import { jetstreamManager } from "@nats-io/jetstream"
import { ConfigProvider, Effect, Layer, ManagedRuntime, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import { AggregatorLayer } from "../../../services/aggregator/src/AggregatorLayer.ts"
import { JOB_RETRIES_DURABLE } from "../../../services/aggregator/src/jobs/JobRetrier.ts"
import { type ExtractorHarness, startExtractorHarness } from "../../../services/extractor/test/ExtractorHarness.ts"
import { eventually } from "../../support/Eventually.ts"
import { type MediaServer, startMediaServer } from "../../support/MediaServer.ts"

let media: MediaServer
let extractor: ExtractorHarness
let aggregator: ManagedRuntime.ManagedRuntime<unknown, never> | undefined

beforeAll(async () => {
  media = await startMediaServer()
  // One request per run: each 503 fails the run, so only the automatic retries can get the file.
  extractor = await startExtractorHarness({ EGRESS_ALLOW: media.hostPort, DOWNLOAD_RETRIES: "0" })
  aggregator = ManagedRuntime.make(
    AggregatorLayer.pipe(
      Layer.provideMerge(
        ConfigProvider.layer(
          ConfigProvider.fromEnvRecord({
            NATS_URL: extractor.nats.url,
            DATA_DIR: extractor.dataDir,
            DOWNLOAD_URL_SECRET: "test-secret",
            API_KEY_PEPPER: "test-pepper",
            PUBLIC_BASE_URL: "http://gateway.test",
            JOB_AUTO_RETRIES: "2",
            JOB_RETRY_BACKOFF_SECONDS: "0.2"
          })
        )
      ),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  ) as ManagedRuntime.ManagedRuntime<unknown, never>
  await aggregator.runPromise(Effect.void)
})

afterAll(async () => {
  await aggregator?.dispose()
  await extractor?.close()
  await media?.close()
})

/** The job's events once it completed (a failure is not its end here: it is retried). */
const untilCompleted = (projectId: string, jobId: string) =>
  eventually(
    () => extractor.jobEvents(projectId, jobId),
    (events) => events.some((e) => e._tag === "JobCompleted"),
    `job ${jobId} completed`,
    90_000
  )

/** The retries' consumer has settled (acked) every job event up to the stream's sequence `seq`. */
const retriesSettled = async (seq: number) => {
  const jsm = await jetstreamManager(extractor.client)
  await eventually(
    () => jsm.consumers.info(JOBS_STREAM.name, JOB_RETRIES_DURABLE),
    (info) => info.ack_floor.stream_seq >= seq && info.num_ack_pending === 0,
    "the job retries consumer acked the failure"
  )
}

describe("automatic retries of a transient failure", () => {
  it("a media server answering 503 twice, then the file: completed on the third attempt, with one file stored", async () => {
    const url = media.urls.flaky("retried-twice", 2, 503)
    const { projectId, jobId } = await extractor.queueJob(url, "video_best")
    const events = await untilCompleted(projectId, jobId)
    const summary = JSON.stringify(events)

    expect(events.at(-1)?._tag, summary).toBe("JobCompleted")
    expect(
      events.flatMap((e) => (e._tag === "JobStarted" ? [e.attempt] : [])),
      summary
    ).toEqual([1, 2, 3])
    const failures = events.flatMap((e) => (e._tag === "JobFailed" ? [e.error] : []))
    expect(
      failures.map((error) => [error.code, error.retryable]),
      summary
    ).toEqual([
      ["download_failed", true],
      ["download_failed", true]
    ])
    expect(
      events.flatMap((e) => (e._tag === "JobRetried" ? [[e.retry, e.attempt, e.by]] : [])),
      summary
    ).toEqual([
      [1, 1, "automatic"],
      [2, 2, "automatic"]
    ])
    expect(media.requestCount(url)).toBeGreaterThanOrEqual(3)

    // One file, the completed attempt's: nothing a failed attempt fetched survived it.
    const stored = await readdir(join(extractor.dataDir, "artifacts", "files", "jobs", projectId, jobId))
    expect(stored).toHaveLength(1)
    const completed = events.at(-1)
    expect(completed?._tag === "JobCompleted" && completed.artifact.key).toBe(`jobs/${projectId}/${jobId}/${stored[0]}`)
    const workLeft = await readdir(join(extractor.dataDir, "work")).catch(() => [])
    expect(workLeft.filter((name) => name.startsWith(jobId))).toEqual([])
    // Its slot is freed once the last attempt's worker is done (just after JobCompleted).
    await eventually(
      () => extractor.lastAdmission(projectId),
      (last) => last.held.length === 0,
      "the job's slot freed"
    )
  })

  it("a failure that is not retryable is never retried", async () => {
    const url = `${media.urls.gone}?not-retried`
    const { projectId, jobId } = await extractor.queueJob(url, "video_best")
    const events = await extractor.waitForEnd(projectId, jobId)
    const last = events.at(-1)
    expect(last?._tag === "JobFailed" && last.error.code, JSON.stringify(events)).toBe("media_unavailable")
    // The retries' consumer has settled the failure (acked: nothing waits for a backoff) and did nothing with it.
    const stored = await extractor.run(Effect.flatMap(EventStore, (store) => store.readSubject(JobEvent, jobSubject(projectId, jobId))))
    await retriesSettled(stored.at(-1)?.seq ?? 0)
    const after = await extractor.jobEvents(projectId, jobId)
    expect(after.filter((e) => e._tag === "JobRetried")).toEqual([])
    expect(after.filter((e) => e._tag === "JobStarted")).toHaveLength(1)
    expect(media.requestCount(url)).toBe(1)
  })
})
