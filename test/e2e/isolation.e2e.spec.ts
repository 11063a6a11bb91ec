// Isolation between projects, seen from outside: project A resolves a members-only page and a members-only feed with
// its cookies; project B's resolves (every page), its download by A's media_id and its batch of A's playlist see a
// fresh extraction (refused without cookies) or 404 media_not_found, never A's media.
import { describe, expect, it } from "vitest"
import { podcastFeedEpisodes } from "../support/MediaServer.ts"
import { type ApiResponse, apiRequest, describeResponse } from "./ApiClient.ts"
import { useMediaStack } from "./MediaStack.ts"

const e2e = useMediaStack({ keys: 2 })
const projectA = () => e2e.keyAt(0)
const projectB = () => e2e.keyAt(1)

const call = (key: string, method: string, path: string, json?: unknown) =>
  apiRequest(e2e.stack.baseUrl, method, path, json === undefined ? { key } : { key, json })

/**
 * A's resolve until the gateway answers it from the resolve cache (the same media twice in a row): from then on the
 * media is in the cache that B's resolves consult too. Each miss is one more extraction with A's cookies.
 */
const resolvedAndCached = async (body: unknown) => {
  const deadline = Date.now() + 60_000
  let last: ApiResponse | null = null
  while (Date.now() < deadline) {
    const response = await call(projectA(), "POST", "/media/resolve", body)
    expect(response.status, e2e.context(response)).toBe(200)
    if (last !== null && last.body.data.id === response.body.data.id) return response.body.data
    last = response
  }
  throw new Error(`A's resolve of ${JSON.stringify(body)} was never answered from the cache\n${e2e.stack.logs()}`)
}

const expectNeverA = (response: ApiResponse, mediaIds: ReadonlyArray<string>) => {
  for (const id of mediaIds) expect(response.text, describeResponse(response)).not.toContain(id)
  expect(response.text).not.toContain("Episode 1")
  expect(response.text).not.toContain("MDS Test Clip")
}

describe("a project's cookie-only media, seen by another project", () => {
  it("B's resolve, download by media_id and batch see a fresh extraction or 404, never A's media", async () => {
    const stored = await call(projectA(), "POST", "/cookies", { platform: "generic", cookies_txt: e2e.media.memberCookies() })
    expect(stored.status, describeResponse(stored)).toBe(200)
    const page = await resolvedAndCached({ url: e2e.media.urls.members })
    const feed = await resolvedAndCached({ url: e2e.media.urls.membersFeed, playlist: {} })
    expect(feed).toMatchObject({ type: "playlist", entry_count: podcastFeedEpisodes })
    const ids = [page.id, feed.id]

    // Resolve: a fresh extraction without A's cookies, which the members-only site refuses; every page of the feed alike.
    expectNeverA(await call(projectB(), "POST", "/media/resolve", { url: e2e.media.urls.members }), ids)
    for (const offset of [0, 1, 2]) {
      const theirs = await call(projectB(), "POST", "/media/resolve", { url: e2e.media.urls.membersFeed, playlist: { offset, limit: 1 } })
      expect(theirs.status, describeResponse(theirs)).not.toBe(200)
      expectNeverA(theirs, ids)
    }

    // By id: exactly what an unknown id answers.
    const download = await call(projectB(), "POST", "/media/download", { media_id: page.id, format: "video_best" })
    expect(download.status, describeResponse(download)).toBe(404)
    expect(download.body.error.code).toBe("media_not_found")
    const batch = await call(projectB(), "POST", "/batches", { media_id: feed.id, format: "audio_m4a" })
    expect(batch.status, describeResponse(batch)).toBe(404)
    expect(batch.body.error.code).toBe("media_not_found")

    // A itself still has both (the download first: the batch's entries then wait for A's slots).
    expect((await call(projectA(), "POST", "/media/download", { media_id: page.id, format: "video_best" })).status).toBe(202)
    expect((await call(projectA(), "POST", "/batches", { media_id: feed.id, format: "audio_m4a" })).status).toBe(202)
  })
})
