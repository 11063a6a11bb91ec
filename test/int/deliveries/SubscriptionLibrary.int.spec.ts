// A subscription's entries delivered into a real folder destination: each run (DeliveryFiles) writes a numbered
// episode NFO and the show's files, and the deliveries (deliverJob) put `tvshow.nfo` and `poster.jpg` once in the
// subscription's folder: the second entry writes nothing over them.
import { mkdtemp, readdir, readFile, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { assert, describe, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { destinationCommands } from "@mds/shared/application/destination/DestinationCommands"
import { deliverJob } from "@mds/shared/application/job/DeliverJob"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import type { DeliveryOrder } from "@mds/shared/domain/delivery/DeliveryOrder"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"
import { retainSubscription } from "@mds/shared/application/job/RetainDeliveries"
import { currentSubscription, subscriptionCommands } from "@mds/shared/application/subscription/SubscriptionCommands"
import { SubscriptionStates } from "@mds/shared/application/subscription/SubscriptionStates"
import { InMemorySubscriptionReadModel } from "@mds/shared/readmodel/memory/InMemorySubscriptionReadModel"
import { jobSubject } from "@mds/shared/nats/Subjects"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { subscriptionBatchOptions } from "@mds/shared/domain/subscription/SubscriptionLibrary"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { DeliveryFiles } from "../../../services/extractor/src/download/DeliveryFiles.ts"
import { deliveryServices } from "./DeliveryServices.ts"

const PROJECT = "prj_aaaaaaaaaaaaaaaaaaaaaaaa"
const DESTINATION = "dst_aaaaaaaaaaaaaaaaaaaaaaaa"
const root = await mkdtemp(join(tmpdir(), "mds-sublib-"))
const library = await mkdtemp(join(tmpdir(), "mds-sublib-library-"))

const services = () =>
  Layer.mergeAll(SubscriptionStates.layer.pipe(Layer.provide(InMemorySubscriptionReadModel.layer)), DeliveryFiles.layer).pipe(
    Layer.provideMerge(deliveryServices(root))
  )

const order = (): DeliveryOrder => {
  const options = subscriptionBatchOptions(
    { delivery: { destinationId: DESTINATION, pathTemplate: "{uploader}/{upload_date}/{title}.{ext}", sidecars: ["nfo", "thumbnail"] } },
    { subscriptionId: "sub_1", playlistId: "med_playlist", playlistTitle: "Chan Uploads", url: "https://media.example/c" }
  )
  if (options?.delivery === undefined) throw new Error("no delivery")
  return options.delivery
}

/** One entry's run (its media and thumbnail written as yt-dlp would) and the job's record: stored, waiting for delivery. */
const storedEntry = (jobId: string, title: string, timestamp: number) =>
  Effect.gen(function* () {
    const workDir = yield* Effect.promise(() => mkdtemp(join(root, "run-")))
    const media = join(workDir, "media.mp4")
    const thumb = join(workDir, "media.jpg")
    yield* Effect.promise(() => writeFile(media, `media of ${title}`))
    yield* Effect.promise(() => writeFile(thumb, `thumbnail of ${title}`))
    const key = `jobs/${PROJECT}/${jobId}/media.mp4`
    yield* (yield* ArtifactStore).putFile(key, media, "video/mp4")
    const now = Date.now()
    const artifact = { key, filename: "media.mp4", mimeType: "video/mp4", sizeBytes: 10, availableUntil: now + 3_600_000 }
    const uploadDate = new Date(timestamp * 1000).toISOString().slice(0, 10).replaceAll("-", "")
    const info = { id: jobId, title, uploader: "Chan", upload_date: uploadDate, timestamp, thumbnails: [{ filepath: thumb }] }
    const options = { delivery: order() }
    const command = {
      _tag: "DownloadMedia" as const,
      v: 1 as const,
      jobId,
      projectId: PROJECT,
      url: `https://media.example/${jobId}`,
      mediaId: null,
      format: parseFormatId("video_best"),
      platform: "generic",
      options
    }
    const delivery = yield* (yield* DeliveryFiles).prepare(command, { filepath: media, info }, artifact, workDir)
    if (delivery === undefined) throw new Error("no delivery files")
    const jobs = jobCommands(PROJECT, jobId)
    const source = { url: command.url, mediaId: null }
    yield* jobs({
      _tag: "QueueJob",
      jobId,
      projectId: PROJECT,
      platform: "generic",
      format: command.format,
      source,
      now,
      lifetimeMs: 3_600_000,
      options
    })
    yield* jobs({ _tag: "StartJob", jobId, workerId: "w1", now })
    yield* jobs({ _tag: "CompleteJob", jobId, artifact, attempt: 1, now, delivery })
    return delivery
  })

const read = (path: string) => Effect.promise(() => readFile(join(library, path), "utf8"))

/** DESTINATION: the folder at `path`, the project's. */
const assignFolder = (path: string) =>
  destinationCommands(
    PROJECT,
    DESTINATION
  )({
    _tag: "AssignFolderDestination",
    projectId: PROJECT,
    destinationId: DESTINATION,
    name: "library",
    target: { kind: "folder", path },
    now: Date.now()
  })

/** A folder destination and subscription sub_1 delivering into it, keeping its last entry; the folder. */
const retainedSubscription = Effect.gen(function* () {
  const folder = yield* Effect.promise(() => mkdtemp(join(tmpdir(), "mds-retention-")))
  yield* assignFolder(folder)
  yield* subscriptionCommands(
    PROJECT,
    "sub_1"
  )({
    _tag: "CreateSubscription",
    subscriptionId: "sub_1",
    projectId: PROJECT,
    url: "https://media.example/c",
    platform: "generic",
    format: parseFormatId("video_best"),
    options: { delivery: order() },
    checkEveryMs: 3_600_000,
    filters: {},
    backfill: 0,
    retention: { keepLast: 1 },
    now: Date.now()
  })
  return folder
})

describe("a subscription's library files", { timeout: 60_000 }, () => {
  it.effect("numbered episode NFOs, and tvshow.nfo and poster.jpg written once in the subscription's folder", () =>
    Effect.gen(function* () {
      yield* assignFolder(library)
      // 2024-03-05 14:07 UTC.
      const first = yield* storedEntry("job_aaaaaaaaaaaaaaaaaaaaaaaa", "First", 1_709_647_620)
      assert.deepStrictEqual(
        first.sidecars.filter((sidecar) => sidecar.show === true).map((sidecar) => sidecar.path),
        ["Chan/poster.jpg", "Chan/tvshow.nfo"]
      )
      assert.deepStrictEqual(yield* deliverJob(PROJECT, "job_aaaaaaaaaaaaaaaaaaaaaaaa", { retryDelaysMs: [] }), {
        _tag: "Recorded",
        status: "delivered"
      })
      const episode = yield* read("Chan/20240305/First.nfo")
      assert.include(episode, "<season>2024</season>")
      assert.include(episode, "<episode>3051407</episode>")
      assert.include(episode, "<showtitle>Chan Uploads</showtitle>")
      const show = yield* read("Chan/tvshow.nfo")
      assert.include(show, "<title>Chan Uploads</title>")
      assert.include(show, '<thumb aspect="poster">poster.jpg</thumb>')
      assert.strictEqual(yield* read("Chan/poster.jpg"), "thumbnail of First")

      // A library's own edit of the show's file stays: the next entry writes nothing over an object already there.
      yield* Effect.promise(() => writeFile(join(library, "Chan", "tvshow.nfo"), "<tvshow><title>Edited</title></tvshow>"))
      yield* storedEntry("job_bbbbbbbbbbbbbbbbbbbbbbbb", "Second", 1_709_733_600)
      assert.deepStrictEqual(yield* deliverJob(PROJECT, "job_bbbbbbbbbbbbbbbbbbbbbbbb", { retryDelaysMs: [] }), {
        _tag: "Recorded",
        status: "delivered"
      })
      assert.strictEqual(yield* read("Chan/tvshow.nfo"), "<tvshow><title>Edited</title></tvshow>")
      assert.strictEqual(yield* read("Chan/poster.jpg"), "thumbnail of First")
      assert.include(yield* read("Chan/20240306/Second.nfo"), "<episode>3061400</episode>")
      assert.deepStrictEqual((yield* Effect.promise(() => readdir(join(library, "Chan")))).sort(), [
        "20240305",
        "20240306",
        "poster.jpg",
        "tvshow.nfo"
      ])
    }).pipe(Effect.provide(services()))
  )
})

describe("a subscription's retention", { timeout: 60_000 }, () => {
  it.effect("keep_last 1 removes the older entry's media and own sidecars, keeps the show's files, records it once", () =>
    Effect.gen(function* () {
      const folder = yield* retainedSubscription
      const older = "job_cccccccccccccccccccccccc"
      const newer = "job_dddddddddddddddddddddddd"
      const jobIds = [older, newer]
      yield* storedEntry(older, "Old", 1_709_647_620)
      yield* deliverJob(PROJECT, older, { retryDelaysMs: [] })
      yield* storedEntry(newer, "New", 1_709_733_600)
      yield* deliverJob(PROJECT, newer, { retryDelaysMs: [] })
      const listed = (path: string) => Effect.promise(() => readdir(join(folder, path)).catch(() => [] as Array<string>))
      assert.deepStrictEqual((yield* listed("Chan/20240305")).sort(), ["Old-thumb.jpg", "Old.mp4", "Old.nfo"])

      const first = yield* retainSubscription(PROJECT, "sub_1", jobIds)
      assert.deepStrictEqual(first, { removed: [older], failed: [] })
      assert.deepStrictEqual(yield* listed("Chan/20240305"), [])
      assert.deepStrictEqual((yield* listed("Chan/20240306")).sort(), ["New-thumb.jpg", "New.mp4", "New.nfo"])
      assert.deepStrictEqual((yield* listed("Chan")).sort(), ["20240305", "20240306", "poster.jpg", "tvshow.nfo"])
      const { state } = yield* (yield* JobStates).current(PROJECT, older)
      assert.strictEqual(state?.delivery?.status, "removed")
      assert.isNumber(state?.delivery?.removedAt)

      // Taken up again (a crash after the record, or a second round): nothing removed, nothing recorded twice.
      assert.deepStrictEqual(yield* retainSubscription(PROJECT, "sub_1", jobIds), { removed: [], failed: [] })
      const events = yield* (yield* EventStore).readSubject(JobEvent, jobSubject(PROJECT, older))
      assert.strictEqual(events.filter((e) => e.event._tag === "JobDeliveryRemoved").length, 1)
    }).pipe(Effect.provide(services()))
  )

  it.effect("rounds woken by one delivery each (the reactor's): the older entry, in the library since its own round, goes", () =>
    Effect.gen(function* () {
      const folder = yield* retainedSubscription
      const older = "job_eeeeeeeeeeeeeeeeeeeeeeee"
      const newer = "job_ffffffffffffffffffffffff"
      yield* storedEntry(older, "Old", 1_709_647_620)
      yield* deliverJob(PROJECT, older, { retryDelaysMs: [] })
      assert.deepStrictEqual(yield* retainSubscription(PROJECT, "sub_1", [older]), { removed: [], failed: [] })
      yield* storedEntry(newer, "New", 1_709_733_600)
      yield* deliverJob(PROJECT, newer, { retryDelaysMs: [] })
      // The second round reads only the job it was woken for; the older one is in the subscription's library.
      assert.deepStrictEqual(yield* retainSubscription(PROJECT, "sub_1", [newer]), { removed: [older], failed: [] })
      const listed = (path: string) => Effect.promise(() => readdir(join(folder, path)).catch(() => [] as Array<string>))
      assert.deepStrictEqual(yield* listed("Chan/20240305"), [])
      assert.deepStrictEqual((yield* listed("Chan/20240306")).sort(), ["New-thumb.jpg", "New.mp4", "New.nfo"])
      const { state } = yield* currentSubscription(PROJECT, "sub_1")
      assert.deepStrictEqual(
        state?.library.map((entry) => entry.jobId),
        [newer]
      )
    }).pipe(Effect.provide(services()))
  )
})
