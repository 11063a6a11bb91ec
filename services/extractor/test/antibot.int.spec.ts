// The anti-bot fallback: a platform answering with Cloudflare's challenge is retried with browser impersonation
// (curl_cffi), remembered for later runs, counted in its health; IMPERSONATE_PLATFORMS impersonates from the start.
import { Effect, Option } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { PlatformHealthEvent } from "@mds/shared/domain/platform/PlatformHealthEvent"
import { EventStore } from "@mds/shared/eventstore/EventStore"
import { platformHealthSubject } from "@mds/shared/nats/Subjects"
import { type MediaServer, startMediaServer } from "../../../test/support/MediaServer.ts"
import { downloadCompletes, type ExtractorHarness, startExtractorHarness } from "./ExtractorHarness.ts"

let media: MediaServer
beforeAll(async () => {
  media = await startMediaServer()
})
afterAll(async () => {
  await media?.close()
})

const challengesOf = (url: string) => {
  const { pathname, search } = new URL(url)
  return media.challenged.filter((seen) => seen === `${pathname}${search}`).length
}

describe("anti-bot fallback", () => {
  let harness: ExtractorHarness
  beforeAll(async () => {
    harness = await startExtractorHarness({ EGRESS_ALLOW: media.hostPort })
  })
  afterAll(async () => {
    await harness?.close()
  })

  it("retries a challenged resolve with impersonation, records the block, and impersonates the platform's next runs", async () => {
    const first = media.urls.antiBot("first")
    const reply = await harness.resolve(first)
    expect(reply._tag, JSON.stringify(reply)).toBe("ResolveSucceeded")
    expect(challengesOf(first)).toBe(1)
    expect(media.requestCount(first)).toBe(2)

    const health = Option.getOrThrow(
      await harness.run(
        Effect.gen(function* () {
          return yield* (yield* EventStore).readLast(PlatformHealthEvent, platformHealthSubject("generic"))
        })
      )
    )
    expect(health.event.state.recent.map((r) => r.outcome)).toEqual(["blocked", "ok"])

    // Remembered: the next resolve and a download of another challenged page impersonate from their first request.
    const second = media.urls.antiBot("second")
    expect((await harness.resolve(second))._tag).toBe("ResolveSucceeded")
    expect(challengesOf(second)).toBe(0)
    const third = media.urls.antiBot("third")
    await downloadCompletes(harness, third)
    expect(challengesOf(third)).toBe(0)
  })
})

describe("impersonation forced by configuration", () => {
  let harness: ExtractorHarness
  beforeAll(async () => {
    harness = await startExtractorHarness({ EGRESS_ALLOW: media.hostPort, IMPERSONATE_PLATFORMS: "generic" })
  })
  afterAll(async () => {
    await harness?.close()
  })

  it("never meets the challenge, and a challenge met while impersonating fails as extraction_failed", async () => {
    const url = media.urls.antiBot("forced")
    expect((await harness.resolve(url))._tag).toBe("ResolveSucceeded")
    expect(challengesOf(url)).toBe(0)
    expect(media.requestCount(url)).toBe(1)

    const wall = media.urls.antiBot("wall", true)
    const refused = await harness.resolve(wall)
    expect(refused).toMatchObject({ _tag: "ResolveRejected", code: "extraction_failed" })
    expect(challengesOf(wall)).toBe(1)
  })
})
