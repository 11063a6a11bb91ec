// ProjectReadModel on MongoDB: collection `projects`, _id <projectId>, the ProjectView's fields; indexed by member.
import type { Collection } from "mongodb"
import { Effect, Layer, Option, Schema } from "effect"
import { ProjectView } from "../../domain/account/AccountViews.ts"
import { setUnlessLater, type SequencedDocument } from "./MongoConditionalWrite.ts"
import { findById, MongoDatabase, mongoError } from "./MongoDatabase.ts"
import { byProjectName, ProjectReadModel } from "../ProjectReadModel.ts"

export const PROJECTS_COLLECTION = "projects"

const decodeView = Schema.decodeUnknownEffect(ProjectView)
const encodeView = Schema.encodeEffect(ProjectView)

const toView = (doc: SequencedDocument) => {
  const { _id, ...fields } = doc
  return decodeView(fields).pipe(Effect.mapError(mongoError(`decode ${_id}`)))
}

export const makeMongoProjectReadModel = Effect.fn("makeMongoProjectReadModel")(function* (collectionName: string) {
  const { db } = yield* MongoDatabase
  // Projects live as long as their events (kept for good): no TTL index.
  const projects: Collection<SequencedDocument> = db.collection<SequencedDocument>(collectionName)
  yield* Effect.tryPromise({
    // listByMember: the projects whose members include a user (a multikey index over the members array).
    try: () => projects.createIndexes([{ key: { "members.userId": 1 }, name: "member_projects" }]),
    catch: mongoError(`create indexes on ${collectionName}`)
  })

  return ProjectReadModel.of({
    get: (projectId) =>
      findById(projects, projectId).pipe(
        Effect.flatMap((doc) => (doc === null ? Effect.succeed(Option.none<ProjectView>()) : Effect.map(toView(doc), Option.some)))
      ),

    put: Effect.fn("MongoProjectReadModel.put")(function* (view) {
      const fields = yield* encodeView(view).pipe(Effect.mapError(mongoError(`encode ${view.projectId}`)))
      yield* Effect.tryPromise({
        try: () => setUnlessLater(projects, view.projectId, fields, view.lastSeq),
        catch: mongoError(`put ${view.projectId}`)
      })
    }),

    listByMember: Effect.fn("MongoProjectReadModel.listByMember")(function* (userId) {
      const docs = yield* Effect.tryPromise({
        try: () => projects.find({ "members.userId": userId }).toArray(),
        catch: mongoError(`list projects of ${userId}`)
      })
      // Sorted here rather than by the server: by name as the other adapters do (localeCompare), and a user has few.
      return [...(yield* Effect.forEach(docs, toView))].sort(byProjectName)
    })
  })
})

export const MongoProjectReadModel = {
  layer: Layer.effect(ProjectReadModel, makeMongoProjectReadModel(PROJECTS_COLLECTION)),
  layerWithCollection: (collection: string) => Layer.effect(ProjectReadModel, makeMongoProjectReadModel(collection))
}
