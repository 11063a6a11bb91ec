// The aggregator's expiry sweeper on a real nats-server: overdue jobs expire and free their slot; documents, files and thumbnails go.
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ConfigProvider, Effect, Exit, Layer, ManagedRuntime, Option, References } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { MediaEvent, type MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { admissionSubject, jobSubject, mediaSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { AggregatorLayer } from "../src/AggregatorLayer.ts"
import { eventually } from "../../../test/support/Eventually.ts"
import { type NatsServer, startNatsServer } from "../../../test/support/NatsServer.ts"
import { jobQueued } from "../../../test/support/JobEvents.ts"

type Services = EventStore | JobReadModel | ArtifactStore

let nats: NatsServer
let dataDir: string
let runtime: ManagedRuntime.ManagedRuntime<Services, never>
const run = <A, E>(effect: Effect.Effect<A, E, Services>) => runtime.runPromise(effect)

beforeAll(async () => {
  nats = await startNatsServer()
  dataDir = await mkdtemp(join(tmpdir(), "mds-sweeper-"))
  const env = {
    NATS_URL: nats.url,
    DATA_DIR: dataDir,
    DOWNLOAD_URL_SECRET: "test-secret",
    API_KEY_PEPPER: "test-pepper",
    PUBLIC_BASE_URL: "http://files.test",
    EXPIRY_SWEEP_INTERVAL_SECONDS: "0.2",
    EXPIRY_DOCUMENT_GRACE_SECONDS: "0.5"
  }
  runtime = ManagedRuntime.make(
    AggregatorLayer.pipe(
      Layer.provideMerge(ConfigProvider.layer(ConfigProvider.fromEnvRecord(env))),
      Layer.provideMerge(Layer.succeed(References.MinimumLogLevel, "Error")),
      Layer.orDie
    )
  )
  await runtime.runPromise(Effect.void)
})

afterAll(async () => {
  await runtime?.dispose()
  await nats?.close()
  if (dataDir) await rm(dataDir, { recursive: true, force: true })
})

const append = (subject: string, event: JobEvent, msgId: string) =>
  run(
    Effect.gen(function* () {
      yield* (yield* EventStore).append(JobEvent, subject, event, { msgId })
    })
  )
const jobEvents = (projectId: string, jobId: string) =>
  run(
    Effect.gen(function* () {
      return (yield* (yield* EventStore).readSubject(JobEvent, jobSubject(projectId, jobId))).map((s) => s.event._tag)
    })
  )
const document = (projectId: string, jobId: string) =>
  run(
    Effect.gen(function* () {
      return Option.getOrNull(yield* (yield* JobReadModel).get(projectId, jobId))
    })
  )
const artifactExists = (key: string) =>
  run(
    Effect.gen(function* () {
      const opened = yield* Effect.exit((yield* ArtifactStore).open(key))
      if (Exit.isSuccess(opened)) opened.value.body.destroy()
      return Exit.isSuccess(opened)
    })
  )
const storeFile = async (key: string) => {
  const path = join(dataDir, `${newId("job")}.tmp`)
  await writeFile(path, "media bytes")
  await run(
    Effect.gen(function* () {
      yield* (yield* ArtifactStore).putFile(key, path, "video/mp4")
    })
  )
}

const queuedEvent = (projectId: string, jobId: string, lifetimeMs: number): JobEvent => {
  const now = Date.now()
  return jobQueued(projectId, jobId, now, { expiresAt: now + lifetimeMs })
}

describe("expiry sweeper", () => {
  it("expires a job still queued at the end of its lifetime, frees its slot, then removes its document", async () => {
    const projectId = newId("prj")
    const jobId = newId("job")
    const now = Date.now()
    await append(jobSubject(projectId, jobId), queuedEvent(projectId, jobId, 1_000), `q-${jobId}`)
    await run(
      Effect.gen(function* () {
        yield* (yield* EventStore).append(
          AdmissionEvent,
          admissionSubject(projectId),
          {
            _tag: "SlotClaimed",
            v: 1,
            projectId,
            jobId,
            at: now,
            expiresAt: now + 1_000,
            held: [{ jobId, expiresAt: now + 1_000 }]
          },
          { msgId: `c-${jobId}` }
        )
      })
    )
    // A job with a long life beside it is left alone.
    const alive = newId("job")
    await append(jobSubject(projectId, alive), queuedEvent(projectId, alive, 3_600_000), `q-${alive}`)
    // The projection runs (the long-lived job's document is there). The short-lived one's may already be expired and
    // removed by the time it is read on a loaded machine (its life is 1 s), so it is not waited for as queued.
    await eventually(
      () => document(projectId, alive),
      (doc) => doc?.status === "queued",
      "the long-lived job's projected document"
    )

    expect(
      await eventually(
        () => jobEvents(projectId, jobId),
        (tags) => tags.includes("JobExpired"),
        "JobExpired"
      )
    ).toEqual(["JobQueued", "JobExpired"])
    const slots = await run(
      Effect.gen(function* () {
        return Option.getOrThrow(yield* (yield* EventStore).readLast(AdmissionEvent, admissionSubject(projectId))).event
      })
    )
    // A slot frees itself at the job's expiry (it stops counting); the sweeper only releases one that would not.
    expect(liveSlots({ held: slots.held }, Date.now())).toEqual([])
    await eventually(
      () => document(projectId, jobId),
      (doc) => doc === null,
      "the document to be removed"
    )

    expect(await jobEvents(projectId, alive)).toEqual(["JobQueued"])
    expect((await document(projectId, alive))?.status).toBe("queued")
  })

  it("deletes a completed job's file when its link expires, and its document after the job's lifetime", async () => {
    const projectId = newId("prj")
    const jobId = newId("job")
    const subject = jobSubject(projectId, jobId)
    const key = `jobs/${projectId}/${jobId}/clip.mp4`
    await storeFile(key)
    await append(subject, queuedEvent(projectId, jobId, 1_500), `q-${jobId}`)
    await append(subject, { _tag: "JobStarted", v: 1, jobId, attempt: 1, workerId: "w", at: Date.now() }, `s-${jobId}`)
    await append(
      subject,
      {
        _tag: "JobCompleted",
        v: 1,
        jobId,
        artifact: { key, filename: "clip.mp4", mimeType: "video/mp4", sizeBytes: 11, availableUntil: Date.now() + 1_000 },
        at: Date.now()
      },
      `c-${jobId}`
    )
    expect(await artifactExists(key)).toBe(true)
    await eventually(
      () => artifactExists(key),
      (exists) => !exists,
      "the file to be deleted"
    )
    await eventually(
      () => document(projectId, jobId),
      (doc) => doc === null,
      "the document to be removed"
    )
    expect(await jobEvents(projectId, jobId)).toEqual(["JobQueued", "JobStarted", "JobCompleted"])
  })

  it("deletes a generated thumbnail when its media expires", async () => {
    const mediaId = newId("med")
    const key = `thumbnails/${mediaId}.jpg`
    await storeFile(key)
    const media: MediaResolved = {
      _tag: "MediaResolved",
      v: 1,
      mediaId,
      url: "https://example.com/a.mp4",
      webpageUrl: "https://example.com/a.mp4",
      platform: "generic",
      type: "video",
      title: "a",
      thumbnail: `http://files.test/v1/files/${key}?expires=1&signature=x`,
      duration: 4,
      author: { name: "", username: "" },
      formats: [{ id: "video_best", type: "video", quality: "240p", container: "mp4" }],
      resolvedAt: Date.now(),
      expiresAt: Date.now() + 800
    }
    await run(
      Effect.gen(function* () {
        yield* (yield* EventStore).append(MediaEvent, mediaSubject(mediaId), media, { msgId: mediaId })
      })
    )
    await eventually(
      () => artifactExists(key),
      (exists) => !exists,
      "the thumbnail to be deleted"
    )
  })
})
