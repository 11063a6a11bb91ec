// POST /v1/batches takes the download options a single download takes; GET shows entries that expired unfed.
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { batchSubject, mediaSubject } from "@mds/shared/nats/Subjects"
import { Effect } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { resolvedMedia } from "../../../test/int/readmodel/MediaReadModel.contract.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let key: string
let projectId: string
let playlistId: string

beforeAll(async () => {
  h = await startHarness()
  ;({ key, projectId } = await h.provisionKey())
  const now = Date.now()
  const playlist = resolvedMedia({
    type: "playlist",
    formats: [
      { id: "video_best", type: "video", quality: "1080p", container: "mp4" },
      { id: "audio_mp3", type: "audio", quality: "best", container: "mp3" }
    ],
    entries: ["1", "2"].map((n) => ({ id: `ent_${n}`, url: `https://example.com/${n}.mp4`, title: `Clip ${n}`, duration: 60 })),
    resolvedAt: now,
    expiresAt: now + 3_600_000
  })
  playlistId = playlist.mediaId
  await h.gateway.run(
    Effect.gen(function* () {
      yield* (yield* EventStore).append(MediaEvent, mediaSubject(playlist.mediaId), playlist, { msgId: playlist.mediaId })
    })
  )
})
afterAll(async () => {
  await h?.close()
})

const call = (method: "GET" | "POST", url: string, body?: unknown) =>
  h.gateway.app.inject({
    method,
    url,
    ...(body === undefined ? {} : { payload: JSON.stringify(body) }),
    headers: { "content-type": "application/json", "x-api-key": key }
  })

const batchEvents = (batchId: string) =>
  h.gateway.run(
    Effect.gen(function* () {
      return (yield* (yield* EventStore).readSubject(BatchEvent, batchSubject(projectId, batchId))).map((s) => s.event)
    })
  )

describe("POST /v1/batches with download options", () => {
  it("records the clip, preset and subtitle options for every entry's job", async () => {
    const response = await call("POST", "/v1/batches", {
      media_id: playlistId,
      format: "video_best",
      section: { start: 5, end: 12.5 },
      video_codec: "vp9",
      container: "mkv",
      embed_metadata: true,
      subtitles: ["en", "de", "en"]
    })
    expect(response.statusCode, response.body).toBe(202)
    const [created] = await batchEvents(response.json().data.id)
    expect(created).toMatchObject({
      _tag: "BatchCreated",
      options: {
        section: { start: 5, end: 12.5, precise: false },
        videoCodec: "vp9",
        container: "mkv",
        embedMetadata: true,
        subtitles: ["en", "de"]
      }
    })
  })

  it("a batch without options records none", async () => {
    const response = await call("POST", "/v1/batches", { media_id: playlistId, format: "audio_mp3" })
    expect(response.statusCode, response.body).toBe(202)
    const [created] = await batchEvents(response.json().data.id)
    expect(created).not.toHaveProperty("options")
  })

  it("options that do not fit the format or each other are 422 invalid_options, and no batch is made", async () => {
    for (const misfit of [
      { format: "audio_mp3", video_codec: "h264" },
      { format: "video_best", container: "webm", video_codec: "h264" },
      { format: "video_best", section: { start: 10, end: 5 } },
      { format: "video_best", audio_bitrate: 128 }
    ]) {
      const response = await call("POST", "/v1/batches", { media_id: playlistId, ...misfit })
      expect(response.statusCode, `${JSON.stringify(misfit)}: ${response.body}`).toBe(422)
      expect(response.json().error.code).toBe("invalid_options")
    }
    const malformed = await call("POST", "/v1/batches", { media_id: playlistId, format: "video_best", audio_bitrate: 1 })
    expect(malformed.statusCode, malformed.body).toBe(400)
  })
})

describe("GET /v1/batches/{batchId}", () => {
  it("shows an entry that expired unfed as failed with the code expired and no job", async () => {
    const created = await call("POST", "/v1/batches", { media_id: playlistId, format: "audio_mp3" })
    const batchId = created.json().data.id
    await h.gateway.run(
      Effect.gen(function* () {
        const event: BatchEvent = { _tag: "BatchEntriesExpired", v: 1, batchId, entryIds: ["ent_1", "ent_2"], at: Date.now() }
        yield* (yield* EventStore).append(BatchEvent, batchSubject(projectId, batchId), event, { msgId: `expired:${batchId}` })
      })
    )
    const batch = (await call("GET", `/v1/batches/${batchId}`)).json().data
    expect(batch.status).toBe("completed")
    expect(batch.progress).toEqual({ total: 2, pending: 0, queued: 0, completed: 0, failed: 2 })
    expect(batch.entries[0]).toEqual({
      id: "ent_1",
      title: "Clip 1",
      url: "https://example.com/1.mp4",
      status: "failed",
      error: { code: "expired", message: expect.any(String) }
    })
  })
})
