// One visibility rule on every gateway path that hands out resolved media: a media or playlist resolved with project
// A's cookies is A's alone; project B gets a fresh extraction (resolve, every page) or 404 media_not_found (by id).
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { mediaSubject } from "@mds/shared/nats/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { Effect } from "effect"
import type { LightMyRequestResponse } from "fastify"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { resolvedMedia } from "../../../test/int/readmodel/MediaReadModel.contract.ts"
import { type Harness, startHarness } from "./GatewayHarness.ts"

let h: Harness
let a: { key: string; projectId: string }
let b: { key: string; projectId: string }

beforeAll(async () => {
  h = await startHarness()
  a = await h.provisionKey()
  b = await h.provisionKey()
})
afterAll(async () => {
  await h?.close()
})

const post = (url: string, body: unknown, apiKey: string) =>
  h.gateway.app.inject({
    method: "POST",
    url,
    payload: JSON.stringify(body),
    headers: { "content-type": "application/json", "x-api-key": apiKey }
  })

const expectNotFound = (response: LightMyRequestResponse, mediaId: string) => {
  expect(response.statusCode, response.body).toBe(404)
  const { code, message } = response.json().error
  return { code, message: message.replace(mediaId, "<id>") }
}

/** What an extractor records for a resolve with A's cookies, and the aggregator projects into the resolve cache. */
const recordOwned = async (overrides: Partial<MediaResolved>) => {
  const now = Date.now()
  const media = resolvedMedia({ resolvedAt: now, expiresAt: now + 3_600_000, projectId: a.projectId, ...overrides })
  await h.gateway.run(
    Effect.gen(function* () {
      yield* (yield* EventStore).append(MediaEvent, mediaSubject(media.mediaId), media, { msgId: media.mediaId })
      yield* (yield* MediaReadModel).put(media)
    })
  )
  return media
}

const entries = Array.from({ length: 3 }, (_, i) => ({
  id: `ent_${i}`,
  url: `https://vimeo.com/members/${i}`,
  title: `Episode ${i}`,
  duration: 4
}))

describe("media resolved with a project's cookies", () => {
  it("batches: another project's playlist media_id is 404 media_not_found, as an unknown one", async () => {
    const playlist = await recordOwned({ type: "playlist", entries, formats: [] })
    const theirs = expectNotFound(await post("/v1/batches", { media_id: playlist.mediaId, format: "audio_m4a" }, b.key), playlist.mediaId)
    const unknownId = newId("med")
    expect(theirs).toEqual(expectNotFound(await post("/v1/batches", { media_id: unknownId, format: "audio_m4a" }, b.key), unknownId))
    const own = await post("/v1/batches", { media_id: playlist.mediaId, format: "audio_m4a" }, a.key)
    expect(own.statusCode, own.body).toBe(202)
  })

  it("downloads by media_id: another project's media is 404 media_not_found, as an unknown one", async () => {
    const media = await recordOwned({})
    const theirs = expectNotFound(await post("/v1/media/download", { media_id: media.mediaId, format: "video_best" }, b.key), media.mediaId)
    const unknownId = newId("med")
    expect(theirs).toEqual(
      expectNotFound(await post("/v1/media/download", { media_id: unknownId, format: "video_best" }, b.key), unknownId)
    )
    const own = await post("/v1/media/download", { media_id: media.mediaId, format: "video_best" }, a.key)
    expect(own.statusCode, own.body).toBe(202)
  })

  it("resolve: every page of another project's playlist is a fresh extraction, never its entries", async () => {
    const playlist = await recordOwned({ url: `https://vimeo.com/showcase/${newId("med")}`, type: "playlist", entries })
    const before = h.resolveCount()
    const own = await post("/v1/media/resolve", { url: playlist.url, playlist: { offset: 1, limit: 1 } }, a.key)
    expect(own.statusCode, own.body).toBe(200)
    expect(own.json().data).toMatchObject({ id: playlist.mediaId, entries: [{ id: "ent_1" }], next_offset: 2 })
    expect(h.resolveCount()).toBe(before)
    for (const offset of [0, 1, 2]) {
      const theirs = await post("/v1/media/resolve", { url: playlist.url, playlist: { offset, limit: 1 } }, b.key)
      expect(theirs.statusCode, theirs.body).toBe(200)
      expect(theirs.json().data.id).not.toBe(playlist.mediaId)
      expect(JSON.stringify(theirs.json())).not.toContain("ent_")
      expect(h.resolveCount()).toBe(before + offset + 1)
    }
  })
})
