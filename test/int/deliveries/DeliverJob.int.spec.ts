// A stored job's delivery into a real folder destination and into an S3 endpoint nobody answers: the file and its
// sidecar land under the rendered path (once, however often the attempt is made), and an unreachable destination
// fails the job with its code after the retries, with nothing under the final name.
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { destinationCommands } from "@mds/shared/application/destination/DestinationCommands"
import { DestinationAccess } from "@mds/shared/application/destination/DestinationAccess"
import { deliverJob } from "@mds/shared/application/job/DeliverJob"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { deliveryServices } from "./DeliveryServices.ts"

const PROJECT = "prj_aaaaaaaaaaaaaaaaaaaaaaaa"
const FOLDER_DESTINATION = "dst_aaaaaaaaaaaaaaaaaaaaaaaa"
const S3_DESTINATION = "dst_bbbbbbbbbbbbbbbbbbbbbbbb"
const CREDENTIALS = { accessKeyId: "AKIAEXAMPLE0000000001", secretAccessKey: Redacted.make("example-secret") }
const root = await mkdtemp(join(tmpdir(), "mds-deliver-"))
const library = await mkdtemp(join(tmpdir(), "mds-library-"))

const servicesFor = () => deliveryServices(root)

/** A job queued with a delivery into `destinationId`, started and stored: its file and NFO in the service's store. */
const storedJob = (jobId: string, destinationId: string) =>
  Effect.gen(function* () {
    const artifacts = yield* ArtifactStore
    const local = join(root, `${jobId}.mp4`)
    yield* Effect.promise(() => writeFile(local, "the media"))
    yield* Effect.promise(() => writeFile(`${local}.nfo`, "<episodedetails/>"))
    const key = `jobs/${PROJECT}/${jobId}/media.mp4`
    yield* artifacts.putFile(key, local, "video/mp4")
    yield* artifacts.putFile(`${key}.nfo`, `${local}.nfo`, "text/xml")
    const jobs = jobCommands(PROJECT, jobId)
    const now = Date.now()
    yield* jobs({
      _tag: "QueueJob",
      jobId,
      projectId: PROJECT,
      platform: "generic",
      format: parseFormatId("video_best"),
      source: { url: "https://media.example/a.mp4", mediaId: null },
      now,
      lifetimeMs: 3_600_000,
      options: { delivery: { destinationId, pathTemplate: "{uploader}/{title}.{ext}", sidecars: ["nfo"] } }
    })
    yield* jobs({ _tag: "StartJob", jobId, workerId: "w1", now })
    yield* jobs({
      _tag: "CompleteJob",
      jobId,
      artifact: { key, filename: "media.mp4", mimeType: "video/mp4", sizeBytes: 9, availableUntil: now + 3_600_000 },
      attempt: 1,
      now,
      delivery: { path: "Chan/Talk.mp4", sidecars: [{ key: `${key}.nfo`, path: "Chan/Talk.nfo", contentType: "text/xml" }] }
    })
  })

describe("deliverJob", { timeout: 60_000 }, () => {
  it.effect("delivers the file and its sidecar into a folder destination, once, and completes the job", () =>
    Effect.gen(function* () {
      yield* destinationCommands(
        PROJECT,
        FOLDER_DESTINATION
      )({
        _tag: "AssignFolderDestination",
        projectId: PROJECT,
        destinationId: FOLDER_DESTINATION,
        name: "library",
        target: { kind: "folder", path: library },
        now: Date.now()
      })
      yield* storedJob("job_aaaaaaaaaaaaaaaaaaaaaaaa", FOLDER_DESTINATION)
      const first = yield* deliverJob(PROJECT, "job_aaaaaaaaaaaaaaaaaaaaaaaa", { retryDelaysMs: [] })
      assert.deepStrictEqual(first, { _tag: "Recorded", status: "delivered" })
      assert.strictEqual(yield* Effect.promise(() => readFile(join(library, "Chan", "Talk.mp4"), "utf8")), "the media")
      assert.strictEqual(yield* Effect.promise(() => readFile(join(library, "Chan", "Talk.nfo"), "utf8")), "<episodedetails/>")
      const { state } = yield* (yield* JobStates).current(PROJECT, "job_aaaaaaaaaaaaaaaaaaaaaaaa")
      assert.strictEqual(state?.status, "completed")
      assert.strictEqual(state?.delivery?.status, "delivered")
      // Taken up again (a redelivered wake-up): nothing left to do, nothing written twice.
      assert.deepStrictEqual(yield* deliverJob(PROJECT, "job_aaaaaaaaaaaaaaaaaaaaaaaa", { retryDelaysMs: [] }), { _tag: "Nothing" })
      assert.deepStrictEqual((yield* Effect.promise(() => readdir(join(library, "Chan")))).sort(), ["Talk.mp4", "Talk.nfo"])
    }).pipe(Effect.provide(servicesFor()))
  )

  it.effect("an S3 endpoint nobody answers: a retry waits, then the job fails destination_unreachable", () =>
    Effect.gen(function* () {
      // Created as the gateway creates one: its credentials sealed for it. Port 1 of the loopback: nobody answers.
      const sealed = yield* (yield* DestinationAccess).seal(PROJECT, S3_DESTINATION, CREDENTIALS)
      yield* destinationCommands(
        PROJECT,
        S3_DESTINATION
      )({
        _tag: "CreateDestination",
        projectId: PROJECT,
        destinationId: S3_DESTINATION,
        name: "bucket",
        target: {
          kind: "s3",
          endpoint: "http://127.0.0.1:1",
          bucket: "mds-library",
          region: "us-east-1",
          prefix: "",
          accessKeyHint: "****",
          sealedCredentials: sealed
        },
        now: Date.now()
      })
      const jobId = "job_bbbbbbbbbbbbbbbbbbbbbbbb"
      yield* storedJob(jobId, S3_DESTINATION)
      const first = yield* deliverJob(PROJECT, jobId, { retryDelaysMs: [0] })
      assert.deepStrictEqual(first, { _tag: "Recorded", status: "pending" })
      const second = yield* deliverJob(PROJECT, jobId, { retryDelaysMs: [0] })
      assert.deepStrictEqual(second, { _tag: "Recorded", status: "failed" })
      const { state } = yield* (yield* JobStates).current(PROJECT, jobId)
      assert.strictEqual(state?.status, "failed")
      assert.strictEqual(state?.error?.code, "destination_unreachable", state?.error?.message)
      assert.strictEqual(state?.delivery?.attempts, 2)
    }).pipe(Effect.provide(servicesFor()))
  )
})
