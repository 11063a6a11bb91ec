// MediaReadModel on NATS KV (embedded): bucket mds_media, key <mediaId> -> MediaResolved JSON, key url.<sha256> -> mediaId.
import { createHash } from "node:crypto"
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Option, Schema } from "effect"
import { Lifetimes } from "../../config/Lifetimes.ts"
import { MediaResolved } from "../../domain/media/MediaEvent.ts"
import { openKvBucket, readModelError } from "./KvBucket.ts"
import { MediaReadModel } from "../MediaReadModel.ts"

export const MEDIA_BUCKET = "mds_media"
const MARGIN_MS = 3_600_000

const MediaJson = Schema.fromJsonString(MediaResolved)
const decodeMedia = Schema.decodeUnknownEffect(MediaJson)
const encodeMedia = Schema.encodeEffect(MediaJson)

/** URLs hold characters KV keys may not; their hash is a safe, fixed-length key. */
export const urlIndexKey = (url: string) => `url.${createHash("sha256").update(url).digest("hex")}`

const getEntry = (kv: KV, key: string) =>
  Effect.tryPromise({ try: () => kv.get(key), catch: readModelError(`get ${key}`) }).pipe(
    Effect.map((entry) => (entry === null || entry.operation !== "PUT" ? Option.none() : Option.some(entry)))
  )

const readMedia = (kv: KV, mediaId: string) =>
  getEntry(kv, mediaId).pipe(
    Effect.flatMap(
      Option.match({
        onNone: () => Effect.succeed(Option.none<MediaResolved>()),
        onSome: (entry) => decodeMedia(entry.string()).pipe(Effect.map(Option.some), Effect.mapError(readModelError(`decode ${mediaId}`)))
      })
    )
  )

export const makeKvMediaReadModel = Effect.fn("makeKvMediaReadModel")(function* (bucket: string) {
  const lifetimes = yield* Lifetimes
  const kv = yield* openKvBucket(bucket, lifetimes.mediaMs + MARGIN_MS)

  return MediaReadModel.of({
    get: (mediaId) => readMedia(kv, mediaId),

    findByUrl: Effect.fn("KvMediaReadModel.findByUrl")(function* (url) {
      const index = yield* getEntry(kv, urlIndexKey(url))
      if (Option.isNone(index)) return Option.none()
      return yield* readMedia(kv, index.value.string())
    }),

    put: Effect.fn("KvMediaReadModel.put")(function* (media) {
      const json = yield* encodeMedia(media).pipe(Effect.mapError(readModelError(`encode ${media.mediaId}`)))
      // The document first, then the index: the index never points at a document that is not there yet.
      yield* Effect.tryPromise({ try: () => kv.put(media.mediaId, json), catch: readModelError(`put ${media.mediaId}`) })
      yield* Effect.tryPromise({
        try: () => kv.put(urlIndexKey(media.url), media.mediaId),
        catch: readModelError(`index ${media.mediaId}`)
      })
    })
  })
})

export const KvMediaReadModel = {
  layer: Layer.effect(MediaReadModel, makeKvMediaReadModel(MEDIA_BUCKET)),
  layerWithBucket: (bucket: string) => Layer.effect(MediaReadModel, makeKvMediaReadModel(bucket))
}
