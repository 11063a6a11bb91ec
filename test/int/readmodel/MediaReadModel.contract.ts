// Behaviour every MediaReadModel adapter must have; run it against each adapter with its own layer.
import { assert, layer } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import type { MediaResolved } from "@mds/shared/domain/media/MediaEvent"
import { newId } from "@mds/shared/ids/Ids"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"

export const resolvedMedia = (overrides: Partial<MediaResolved> = {}): MediaResolved => ({
  _tag: "MediaResolved",
  v: 1,
  mediaId: newId("med"),
  url: `https://vimeo.com/${Math.floor(Math.random() * 1e9)}?x=1&y=ü`,
  webpageUrl: "https://vimeo.com/1",
  platform: "vimeo",
  type: "video",
  title: "A title",
  thumbnail: "https://i.vimeocdn.com/1.jpg",
  duration: 61,
  author: { name: "Someone", username: "someone" },
  formats: [
    { id: "video_best", type: "video", quality: "1080p", container: "mp4" },
    { id: "audio_mp3", type: "audio", quality: "best", container: "mp3" }
  ],
  resolvedAt: 1_000,
  expiresAt: 3_601_000,
  ...overrides
})

export const mediaReadModelContract = (name: string, adapter: Layer.Layer<MediaReadModel, unknown>) =>
  layer(adapter, { timeout: 60_000 })(`MediaReadModel contract: ${name}`, (it) => {
    it.effect("get of an unknown media id is none", () =>
      Effect.gen(function* () {
        const store = yield* MediaReadModel
        assert.isTrue(Option.isNone(yield* store.get(newId("med"))))
      })
    )

    it.effect("put then get returns the same media", () =>
      Effect.gen(function* () {
        const store = yield* MediaReadModel
        const media = resolvedMedia()
        yield* store.put(media)
        assert.deepStrictEqual(yield* store.get(media.mediaId), Option.some(media))
      })
    )

    it.effect("findByUrl finds the media by the exact URL it was resolved from", () =>
      Effect.gen(function* () {
        const store = yield* MediaReadModel
        const media = resolvedMedia()
        yield* store.put(media)
        assert.deepStrictEqual(yield* store.findByUrl(media.url), Option.some(media))
        assert.isTrue(Option.isNone(yield* store.findByUrl(`${media.url}#other`)))
      })
    )

    it.effect("findByUrl of an unknown URL is none", () =>
      Effect.gen(function* () {
        const store = yield* MediaReadModel
        assert.isTrue(Option.isNone(yield* store.findByUrl("https://example.org/never-resolved")))
      })
    )

    it.effect("findByUrl returns the latest media resolved from that URL", () =>
      Effect.gen(function* () {
        const store = yield* MediaReadModel
        const first = resolvedMedia()
        const second = resolvedMedia({ url: first.url, resolvedAt: 2_000, title: "Newer" })
        yield* store.put(first)
        yield* store.put(second)
        assert.deepStrictEqual(yield* store.findByUrl(first.url), Option.some(second))
        // The older media stays readable by its id until it expires.
        assert.deepStrictEqual(yield* store.get(first.mediaId), Option.some(first))
      })
    )
  })
