// The extractor in-process against a real nats-server, the pinned yt-dlp, ffmpeg and the local media server.
import { execFile } from "node:child_process"
import { readFile } from "node:fs/promises"
import { join } from "node:path"
import { promisify } from "node:util"
import { Effect, Option } from "effect"
import { describe, expect, it } from "vitest"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { claimSlot } from "@mds/shared/application/admission/AdmissionCommands"
import { type QueuedJob, queueJob, sendDownloadWork } from "@mds/shared/application/job/DownloadWork"
import { jobCommands } from "@mds/shared/application/job/JobCommands"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import type { ResolveReply } from "@mds/shared/domain/media/ResolveRpc"
import { ExtractorCatalogPublished } from "@mds/shared/domain/platform/CatalogEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { EXTRACTOR_CATALOG_SUBJECT, mediaSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { eventually } from "../../../test/support/Eventually.ts"
import { fixtureFacts } from "../../../test/support/MediaFixtures.ts"
import { mediaAndExtractor } from "./ExtractorHarness.ts"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

const execFileAsync = promisify(execFile)

const stack = mediaAndExtractor({ WORKER_CONCURRENCY: "2" })

const withStore = <A, E>(f: (store: EventStore["Service"]) => Effect.Effect<A, E>) =>
  stack.harness.run(
    Effect.gen(function* () {
      return yield* f(yield* EventStore)
    })
  )
const withArtifacts = <A, E>(f: (store: ArtifactStore["Service"]) => Effect.Effect<A, E>) =>
  stack.harness.run(
    Effect.gen(function* () {
      return yield* f(yield* ArtifactStore)
    })
  )

const rejectionCode = (reply: ResolveReply) => (reply._tag === "ResolveRejected" ? reply.code : `succeeded`)

describe("start-up", () => {
  it("publishes the installed yt-dlp's extractor catalog", async () => {
    const last = await withStore((s) => s.readLast(ExtractorCatalogPublished, EXTRACTOR_CATALOG_SUBJECT))
    const event = Option.getOrThrow(last).event
    expect(event.ytDlpVersion).toBe("2026.10.26")
    if (event.v !== 2) throw new Error(`expected a version 2 catalog, got ${event.v}`)
    // Keys, names and working flags, read through yt-dlp's Python API (--list-extractors has names only).
    expect(event.extractors).toContainEqual({
      key: "Generic",
      name: "generic",
      description: "Generic downloader that works on some sites",
      working: true
    })
    expect(event.extractors).toContainEqual(expect.objectContaining({ key: "TwitchVod", name: "twitch:vod", working: true }))
    expect(event.extractors.filter((e) => !e.working).length).toBeGreaterThan(10)
    expect(event.extractors.length).toBeGreaterThan(1500)
  })
})

describe("resolve RPC", () => {
  it("resolves a direct mp4: duration probed, audio formats offered, thumbnail generated, MediaResolved stored", async () => {
    const reply = await stack.harness.resolve(stack.media.urls.mp4)
    if (reply._tag !== "ResolveSucceeded") throw new Error(`resolve failed: ${reply.code} ${reply.message}`)
    const m = reply.media
    expect(m.mediaId).toMatch(/^med_[a-z2-7]{24}$/)
    expect(m.platform).toBe("generic")
    expect(m.type).toBe("video")
    expect(m.duration).toBe(fixtureFacts.clipSeconds)
    expect(m.formats.map((f) => f.id)).toEqual(["video_best", `video_${fixtureFacts.clipHeight}p`, "audio_best", "audio_mp3", "audio_m4a"])
    expect(m.author.name).toBe("127.0.0.1")
    expect(m.thumbnail).toMatch(new RegExp(`^http://gateway\\.test/v1/files/thumbnails/${m.mediaId}\\.jpg\\?expires=\\d+&signature=`))
    const thumb = await withArtifacts((s) => s.open(`thumbnails/${m.mediaId}.jpg`))
    expect(thumb.contentType).toBe("image/jpeg")
    expect(thumb.sizeBytes).toBeGreaterThan(500)
    thumb.body.destroy()
    const stored = await withStore((s) => s.readSubject(MediaEvent, mediaSubject(m.mediaId)))
    expect(stored.map((e) => e.event)).toEqual([m])
  })

  it("offers no audio formats for a silent video", async () => {
    const reply = await stack.harness.resolve(stack.media.urls.silentMp4)
    expect(reply._tag === "ResolveSucceeded" && reply.media.formats.map((f) => f.type)).toEqual(["video", "video"])
  })

  it("shares one extraction between concurrent identical requests", async () => {
    const [a, b] = await Promise.all([stack.harness.resolve(stack.media.urls.audio), stack.harness.resolve(stack.media.urls.audio)])
    expect(a._tag).toBe("ResolveSucceeded")
    expect(a._tag === "ResolveSucceeded" && b._tag === "ResolveSucceeded" && a.media.mediaId === b.media.mediaId).toBe(true)
    expect(a._tag === "ResolveSucceeded" && a.media.type).toBe("audio")
  })

  it("answers a 404 and a 410 with media_unavailable", async () => {
    expect(rejectionCode(await stack.harness.resolve(stack.media.urls.notFound))).toBe("media_unavailable")
    expect(rejectionCode(await stack.harness.resolve(stack.media.urls.gone))).toBe("media_unavailable")
  })

  it("answers a private address outside EGRESS_ALLOW with url_not_allowed, before any request", async () => {
    const port = Number(stack.media.hostPort.split(":")[1])
    const before = stack.media.requests.length
    expect(rejectionCode(await stack.harness.resolve(`http://127.0.0.1:${port + 1}/media/clip.mp4`))).toBe("url_not_allowed")
    expect(rejectionCode(await stack.harness.resolve("http://169.254.169.254/latest/meta-data/"))).toBe("url_not_allowed")
    expect(rejectionCode(await stack.harness.resolve("http://2130706433/x.mp4"))).toBe("url_not_allowed")
    expect(stack.media.requests.length).toBe(before)
  })

  it("refuses, in the proxy, a redirect from an allowed host to a forbidden address", async () => {
    const reply = await stack.harness.resolve(stack.media.urls.redirectTo("http://169.254.169.254/latest/meta-data/"))
    expect(rejectionCode(reply)).toBe("url_not_allowed")
    expect(reply._tag === "ResolveRejected" && reply.message).toContain("169.254.169.254")
  })

  it("answers a blocked platform with unsupported_platform", async () => {
    expect(rejectionCode(await stack.harness.resolve("https://youtu.be/dQw4w9WgXcQ"))).toBe("unsupported_platform")
  })
})

describe("download worker", () => {
  it("runs a video_best job end to end: started, progressed, completed with the stored file, slot released", async () => {
    const { jobId, projectId } = await stack.harness.queueJob(stack.media.urls.slow, "video_best")
    const events = await stack.harness.waitForEnd(projectId, jobId)
    const tags = events.map((e) => e._tag)
    expect(tags[0]).toBe("JobQueued")
    expect(tags[1]).toBe("JobStarted")
    expect(tags).toContain("JobProgressed")
    expect(tags.at(-1)).toBe("JobCompleted")
    const percents = events.flatMap((e) => (e._tag === "JobProgressed" ? [e.percent] : []))
    expect([...percents].sort((a, b) => a - b)).toEqual(percents)
    const completed = events.at(-1)
    if (completed?._tag !== "JobCompleted") throw new Error("not completed")
    const { artifact } = completed
    expect(artifact.key).toBe(`jobs/${projectId}/${jobId}/slow.mp4`)
    expect(artifact.mimeType).toBe("video/mp4")
    const opened = await withArtifacts((s) => s.open(artifact.key))
    opened.body.destroy()
    expect(opened.sizeBytes).toBe(artifact.sizeBytes)
    const onDisk = await readFile(join(stack.harness.dataDir, "artifacts", "files", ...artifact.key.split("/")))
    expect(onDisk.length).toBe(artifact.sizeBytes)
    const slots = await stack.harness.lastAdmission(projectId)
    expect(slots._tag).toBe("SlotReleased")
    expect(slots._tag === "SlotReleased" && slots.reason).toBe("completed")
    expect(slots.held).toEqual([])
  })

  it("produces a real mp3 for audio_mp3", async () => {
    const { jobId, projectId } = await stack.harness.queueJob(stack.media.urls.mp4, "audio_mp3")
    const events = await stack.harness.waitForEnd(projectId, jobId)
    const completed = events.at(-1)
    if (completed?._tag !== "JobCompleted") throw new Error(`not completed: ${JSON.stringify(completed)}`)
    expect(completed.artifact.filename).toBe("clip.mp3")
    expect(completed.artifact.mimeType).toBe("audio/mpeg")
    const path = join(stack.harness.dataDir, "artifacts", "files", ...completed.artifact.key.split("/"))
    const { stdout } = await execFileAsync("ffprobe", ["-v", "error", "-print_format", "json", "-show_format", "-show_streams", path])
    const probe = JSON.parse(stdout) as { format: { format_name: string }; streams: Array<{ codec_name: string }> }
    expect(probe.format.format_name).toBe("mp3")
    expect(probe.streams.map((s) => s.codec_name)).toEqual(["mp3"])
  })

  it("fails a job whose media is gone with media_unavailable and releases the slot", async () => {
    const { jobId, projectId } = await stack.harness.queueJob(stack.media.urls.gone, "video_best")
    const events = await stack.harness.waitForEnd(projectId, jobId)
    const failed = events.at(-1)
    expect(failed?._tag === "JobFailed" && failed.error.code).toBe("media_unavailable")
    const slots = await stack.harness.lastAdmission(projectId)
    expect(slots._tag === "SlotReleased" && slots.reason).toBe("failed")
  })

  it("fails a job redirected to a forbidden address with url_not_allowed", async () => {
    const { jobId, projectId } = await stack.harness.queueJob(stack.media.urls.redirectTo("http://10.255.255.1/x.mp4"), "video_best")
    const events = await stack.harness.waitForEnd(projectId, jobId)
    const failed = events.at(-1)
    expect(failed?._tag === "JobFailed" && failed.error.code).toBe("url_not_allowed")
  })

  it("frees the slot of a job that ended before its worker could free it, when the work is delivered again", async () => {
    // A run recorded JobCompleted, then lost NATS before releasing the slot: the work message comes back.
    const projectId = newId("prj")
    const jobId = newId("job")
    const now = Date.now()
    const job: QueuedJob = {
      jobId,
      projectId,
      platform: "generic",
      format: parseFormatId("video_best"),
      source: { url: stack.media.urls.mp4, mediaId: null },
      now,
      lifetimeMs: 3_600_000
    }
    const artifact = {
      key: `jobs/${projectId}/${jobId}/clip.mp4`,
      filename: "clip.mp4",
      mimeType: "video/mp4",
      sizeBytes: 1,
      availableUntil: now + 3_600_000
    }
    await stack.harness.run(
      Effect.gen(function* () {
        yield* queueJob(job)
        yield* claimSlot({ projectId, jobId, limit: 2, now, expiresAt: now + 3_600_000 })
        const commands = jobCommands(projectId, jobId)
        yield* commands({ _tag: "StartJob", jobId, workerId: "a-worker-that-died", now })
        yield* commands({ _tag: "CompleteJob", jobId, artifact, now })
      })
    )
    expect((await stack.harness.lastAdmission(projectId))._tag).toBe("SlotClaimed")
    await stack.harness.run(sendDownloadWork(job))
    const released = await eventually(
      () => stack.harness.lastAdmission(projectId),
      (event) => event._tag === "SlotReleased",
      "the redelivered work to free the slot"
    )
    expect(released._tag === "SlotReleased" && released.reason).toBe("completed")
    expect(released.held).toEqual([])
    // The job was not run again.
    expect((await stack.harness.jobEvents(projectId, jobId)).map((e) => e._tag)).toEqual(["JobQueued", "JobStarted", "JobCompleted"])
  })
})
