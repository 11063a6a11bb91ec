// JobReadModel on NATS KV (embedded): bucket mds_jobs, key <projectId>.<jobId>, value the JobView as JSON.
import { JetStreamApiCodes, JetStreamApiError } from "@nats-io/jetstream"
import type { KV } from "@nats-io/kv"
import { Effect, Layer, Option, Schema } from "effect"
import { Lifetimes } from "../../config/Lifetimes.ts"
import { subjectKind } from "../../nats/SubjectKind.ts"
import { JobView } from "../../domain/job/JobView.ts"
import { JobReadModel, type JobViewWrite, type VersionedJobView } from "../JobReadModel.ts"
import { openKvBucket, readModelError, distinctKeys } from "./KvBucket.ts"
import { putUnlessLater } from "./KvConditionalPut.ts"

export const JOBS_BUCKET = "mds_jobs"
/** Kept past the job's and its link's lifetime so a late poll still finds the document until it truly expires. */
const MARGIN_MS = 3_600_000

const JobViewJson = Schema.fromJsonString(JobView)
const decodeView = Schema.decodeUnknownEffect(JobViewJson)
const encodeView = Schema.encodeEffect(JobViewJson)

const keyOf = (projectId: string, jobId: string) => `${projectId}.${jobId}`

/** The subject a watch of a job bucket delivers a document's writes on: its key under the bucket's KV prefix. */
export const jobViewSubject = subjectKind("$KV", ["bucket", "projectId", "jobId"])

const readVersioned = (kv: KV, key: string) =>
  Effect.tryPromise({ try: () => kv.get(key), catch: readModelError(`get ${key}`) }).pipe(
    Effect.flatMap((entry) =>
      entry === null || entry.operation !== "PUT"
        ? Effect.succeed(Option.none<VersionedJobView>())
        : decodeView(entry.string()).pipe(
            Effect.map((view) => Option.some({ view, revision: entry.revision })),
            Effect.mapError(readModelError(`decode ${key}`))
          )
    )
  )

const readView = (kv: KV, key: string) =>
  Effect.map(
    readVersioned(kv, key),
    Option.map((stored) => stored.view)
  )

/** The entry's revision was not the one expected (or the key was created meanwhile). */
const isChanged = (cause: unknown) =>
  cause instanceof JetStreamApiError &&
  (cause.code === JetStreamApiCodes.StreamWrongLastSequence || cause.code === JetStreamApiCodes.StreamWrongLastSequenceUnknown)

export const makeKvJobReadModel = Effect.fn("makeKvJobReadModel")(function* (bucket: string) {
  const lifetimes = yield* Lifetimes
  const kv = yield* openKvBucket(bucket, lifetimes.jobMs + lifetimes.downloadUrlMs + MARGIN_MS)

  return JobReadModel.of({
    get: (projectId, jobId) => readView(kv, keyOf(projectId, jobId)),

    put: Effect.fn("KvJobReadModel.put")(function* (view) {
      const key = keyOf(view.projectId, view.id)
      const json = yield* encodeView(view).pipe(Effect.mapError(readModelError(`encode ${key}`)))
      // Compare-and-set on the entry's revision, so a writer holding an older fold (a rebuild beside the live
      // aggregator) can never replace a document of a later sequence.
      yield* Effect.tryPromise({ try: () => putUnlessLater(kv, key, json, view.lastSeq), catch: readModelError(`put ${key}`) })
    }),

    putNew: Effect.fn("KvJobReadModel.putNew")(function* (view) {
      const key = keyOf(view.projectId, view.id)
      const json = yield* encodeView(view).pipe(Effect.mapError(readModelError(`encode ${key}`)))
      // create fails when the key holds a document; then the conditional put decides.
      yield* Effect.tryPromise({
        try: () =>
          kv.create(key, json).then(
            () => undefined,
            () => putUnlessLater(kv, key, json, view.lastSeq)
          ),
        catch: readModelError(`put ${key}`)
      })
    }),

    getVersioned: (projectId, jobId) => readVersioned(kv, keyOf(projectId, jobId)),

    putAt: Effect.fn("KvJobReadModel.putAt")(function* (view, revision) {
      const key = keyOf(view.projectId, view.id)
      const json = yield* encodeView(view).pipe(Effect.mapError(readModelError(`encode ${key}`)))
      // create also takes a key whose document was removed (purged); update compares the entry's revision.
      return yield* Effect.tryPromise({
        try: () =>
          (revision === null ? kv.create(key, json) : kv.update(key, json, revision)).then(
            (written): JobViewWrite => ({ _tag: "Written", revision: written }),
            (cause): JobViewWrite | Promise<never> => (isChanged(cause) ? { _tag: "Changed" } : Promise.reject(cause))
          ),
        catch: readModelError(`put ${key}`)
      })
    }),

    remove: Effect.fn("KvJobReadModel.remove")(function* (projectId, jobId) {
      const key = keyOf(projectId, jobId)
      yield* Effect.tryPromise({ try: () => kv.purge(key), catch: readModelError(`remove ${key}`) })
    }),

    listByProject: Effect.fn("KvJobReadModel.listByProject")(function* (projectId, limit) {
      const keys = yield* Effect.tryPromise({
        try: async () => {
          return distinctKeys(kv, `${projectId}.*`)
        },
        catch: readModelError(`list ${projectId}`)
      })
      const views = yield* Effect.forEach(keys, (key) => readView(kv, key), { concurrency: 8 })
      return views
        .flatMap((view) => (Option.isSome(view) ? [view.value] : []))
        .sort((a, b) => b.createdAt - a.createdAt || (a.id < b.id ? 1 : -1))
        .slice(0, Math.max(0, limit))
    })
  })
})

export const KvJobReadModel = {
  /** The production bucket. */
  layer: Layer.effect(JobReadModel, makeKvJobReadModel(JOBS_BUCKET)),
  /** Another bucket, e.g. to rebuild the read model from scratch beside the live one. */
  layerWithBucket: (bucket: string) => Layer.effect(JobReadModel, makeKvJobReadModel(bucket))
}
