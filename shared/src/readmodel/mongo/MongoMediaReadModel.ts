// MediaReadModel on MongoDB: collection `media`, _id <mediaId>, indexed by URL for the resolve cache, with a TTL date.
import type { Collection } from "mongodb"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { Lifetimes } from "../../config/Lifetimes.ts"
import { MediaResolved } from "../../domain/media/MediaEvent.ts"
import { MediaReadModel } from "../MediaReadModel.ts"
import { findById, MongoDatabase, mongoError } from "./MongoDatabase.ts"

export const MEDIA_COLLECTION = "media"
const MARGIN_MS = 3_600_000

interface MediaDocument extends Record<string, unknown> {
  _id: string
  url: string
  purgeAt: Date
}

const decodeMedia = Schema.decodeUnknownEffect(MediaResolved)
const encodeMedia = Schema.encodeEffect(MediaResolved)

const toMedia = (doc: MediaDocument | null) => {
  if (doc === null) return Effect.succeed(Option.none<MediaResolved>())
  const { _id, purgeAt: _purgeAt, ...fields } = doc
  return decodeMedia(fields).pipe(Effect.map(Option.some), Effect.mapError(mongoError(`decode ${_id}`)))
}

export const makeMongoMediaReadModel = Effect.fn("makeMongoMediaReadModel")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  const lifetimes = yield* Lifetimes
  const media: Collection<MediaDocument> = db.collection<MediaDocument>(collectionName)
  yield* Effect.tryPromise({
    try: () =>
      media.createIndexes([
        // findByUrl: the latest media resolved from one URL.
        { key: { url: 1, resolvedAt: -1 }, name: "url_latest_first" },
        { key: { purgeAt: 1 }, name: "purge_at_ttl", expireAfterSeconds: 0 }
      ]),
    catch: mongoError(`create indexes on ${collectionName}`)
  })

  return MediaReadModel.of({
    get: (mediaId) => findById(media, mediaId).pipe(Effect.flatMap(toMedia)),

    findByUrl: (url) =>
      Effect.tryPromise({
        // The latest by resolve time rather than by write time, so a replay in any order finds the same media.
        try: () => media.findOne({ url }, { sort: { resolvedAt: -1, _id: -1 } }),
        catch: mongoError("findByUrl")
      }).pipe(Effect.flatMap(toMedia)),

    put: Effect.fn("MongoMediaReadModel.put")(function* (resolved) {
      const fields = yield* encodeMedia(resolved).pipe(Effect.mapError(mongoError(`encode ${resolved.mediaId}`)))
      const purgeAt = new Date((yield* Clock.currentTimeMillis) + lifetimes.mediaMs + MARGIN_MS)
      yield* Effect.tryPromise({
        try: () =>
          media
            .replaceOne({ _id: resolved.mediaId }, { ...fields, _id: resolved.mediaId, url: resolved.url, purgeAt }, { upsert: true })
            .then(() => undefined),
        catch: mongoError(`put ${resolved.mediaId}`)
      })
    })
  })
})

export const MongoMediaReadModel = {
  layer: Layer.effect(MediaReadModel, makeMongoMediaReadModel(MEDIA_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(MediaReadModel, makeMongoMediaReadModel(collection))
}
