// JobReadModel on MongoDB: collection `jobs`, _id <projectId>.<jobId>, the JobView's fields plus a TTL date.
import type { Collection } from "mongodb"
import { Clock, Effect, Layer, Option, Schema } from "effect"
import { Lifetimes } from "../../config/Lifetimes.ts"
import { JobView } from "../../domain/job/JobView.ts"
import { JobReadModel, type JobViewWrite, type VersionedJobView } from "../JobReadModel.ts"
import { findById, isDuplicateKey, MongoDatabase, mongoError } from "./MongoDatabase.ts"

export const JOBS_COLLECTION = "jobs"
/** Same lifetime as the KV bucket: past the job's and its link's lifetime, counted from the last write. */
const MARGIN_MS = 3_600_000

interface JobDocument extends Record<string, unknown> {
  _id: string
  /** MongoDB's TTL monitor deletes the document once this date has passed (checked about once a minute). */
  purgeAt: Date
  /** Raised by every putAt, for its compare-and-set; absent (0) on documents only ever written by put. */
  revision?: number
}

const decodeView = Schema.decodeUnknownEffect(JobView)
const encodeView = Schema.encodeEffect(JobView)
const idOf = (projectId: string, jobId: string) => `${projectId}.${jobId}`

const toVersioned = (doc: JobDocument | null) => {
  if (doc === null) return Effect.succeed(Option.none<VersionedJobView>())
  const { _id, purgeAt: _purgeAt, revision = 0, ...fields } = doc
  return decodeView(fields).pipe(
    Effect.map((view) => Option.some({ view, revision })),
    Effect.mapError(mongoError(`decode ${_id}`))
  )
}

const toView = (doc: JobDocument | null) =>
  Effect.map(
    toVersioned(doc),
    Option.map((stored) => stored.view)
  )

export const makeMongoJobReadModel = Effect.fn("makeMongoJobReadModel")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  const lifetimes = yield* Lifetimes
  const lifetimeMs = lifetimes.jobMs + lifetimes.downloadUrlMs + MARGIN_MS
  const jobs: Collection<JobDocument> = db.collection<JobDocument>(collectionName)
  yield* Effect.tryPromise({
    try: () =>
      jobs.createIndexes([
        // listByProject: one project's newest jobs first, with the same tie-break as the other adapters.
        { key: { projectId: 1, createdAt: -1, id: -1 }, name: "project_newest_first" },
        { key: { purgeAt: 1 }, name: "purge_at_ttl", expireAfterSeconds: 0 }
      ]),
    catch: mongoError(`create indexes on ${collectionName}`)
  })

  const put = Effect.fn("MongoJobReadModel.put")(function* (view: JobView) {
    const _id = idOf(view.projectId, view.id)
    const fields = yield* encodeView(view).pipe(Effect.mapError(mongoError(`encode ${_id}`)))
    const purgeAt = new Date((yield* Clock.currentTimeMillis) + lifetimeMs)
    yield* Effect.tryPromise({
      // Replaces only a document of the same or an earlier sequence; when a later one is stored, the upsert's
      // insert hits the taken _id and the later document stays, which is what we want.
      try: () =>
        jobs.replaceOne({ _id, lastSeq: { $lte: view.lastSeq } }, { ...fields, _id, purgeAt }, { upsert: true }).then(
          () => undefined,
          (cause) => (isDuplicateKey(cause) ? undefined : Promise.reject(cause))
        ),
      catch: mongoError(`put ${_id}`)
    })
  })

  return JobReadModel.of({
    get: (projectId, jobId) => findById(jobs, idOf(projectId, jobId)).pipe(Effect.flatMap(toView)),

    put,
    // The conditional upsert is one step already.
    putNew: put,

    getVersioned: (projectId, jobId) => findById(jobs, idOf(projectId, jobId)).pipe(Effect.flatMap(toVersioned)),

    putAt: Effect.fn("MongoJobReadModel.putAt")(function* (view, revision) {
      const _id = idOf(view.projectId, view.id)
      const fields = yield* encodeView(view).pipe(Effect.mapError(mongoError(`encode ${_id}`)))
      const purgeAt = new Date((yield* Clock.currentTimeMillis) + lifetimeMs)
      const next = (revision ?? 0) + 1
      const document = { ...fields, _id, purgeAt, revision: next }
      return yield* Effect.tryPromise({
        try: async (): Promise<JobViewWrite> => {
          if (revision === null) {
            // A taken _id: another writer stored the job first.
            return jobs.insertOne(document).then(
              () => ({ _tag: "Written", revision: next }),
              (cause) => (isDuplicateKey(cause) ? { _tag: "Changed" } : Promise.reject(cause))
            )
          }
          const filter = revision === 0 ? { _id, $or: [{ revision: 0 }, { revision: { $exists: false } }] } : { _id, revision }
          const replaced = await jobs.replaceOne(filter, document)
          return replaced.matchedCount === 1 ? { _tag: "Written", revision: next } : { _tag: "Changed" }
        },
        catch: mongoError(`put ${_id}`)
      })
    }),

    remove: (projectId, jobId) =>
      Effect.tryPromise({
        try: () => jobs.deleteOne({ _id: idOf(projectId, jobId) }).then(() => undefined),
        catch: mongoError(`remove ${idOf(projectId, jobId)}`)
      }),

    listByProject: Effect.fn("MongoJobReadModel.listByProject")(function* (projectId, limit) {
      // MongoDB reads limit 0 as "no limit".
      if (limit <= 0) return []
      const docs = yield* Effect.tryPromise({
        try: () => jobs.find({ projectId }).sort({ createdAt: -1, id: -1 }).limit(limit).toArray(),
        catch: mongoError(`list ${projectId}`)
      })
      const views = yield* Effect.forEach(docs, toView)
      return views.flatMap((view) => (Option.isSome(view) ? [view.value] : []))
    })
  })
})

export const MongoJobReadModel = {
  layer: Layer.effect(JobReadModel, makeMongoJobReadModel(JOBS_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(JobReadModel, makeMongoJobReadModel(collection))
}
