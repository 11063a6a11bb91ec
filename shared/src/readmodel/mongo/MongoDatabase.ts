// The MongoDB database of the read models (MONGO_URL, e.g. mongodb://mongodb:27017/mds), as a scoped service.
import { type Collection, type Db, type Filter, MongoClient, MongoServerError } from "mongodb"
import { Context, Effect, Layer, Redacted } from "effect"
import { MONGO_URL } from "./MongoSettings.ts"
import { ReadModelError } from "../ReadModelError.ts"
import { isUnavailable } from "../../runtime/Unavailable.ts"

export const mongoError = (operation: string) => (cause: unknown) =>
  new ReadModelError({ operation, message: cause instanceof Error ? cause.message : String(cause), unavailable: isUnavailable(cause) })

/** The document stored under `id`, or null; a failure is a ReadModelError naming `get <id>`. */
export const findById = <D extends { _id: string }>(collection: Collection<D>, id: string) =>
  Effect.tryPromise({ try: () => collection.findOne({ _id: id } as Filter<D>), catch: mongoError(`get ${id}`) })

/** E11000: an upsert whose filter did not match found the _id taken. */
export const isDuplicateKey = (cause: unknown) => cause instanceof MongoServerError && cause.code === 11000

/** The database named in the URL's path, or "mds" when the URL names none. */
export const databaseName = (url: string): string => {
  const path = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]*)/.exec(url)?.[1] ?? ""
  return path === "" ? "mds" : decodeURIComponent(path)
}

export class MongoDatabase extends Context.Service<MongoDatabase, { readonly db: Db }>()("mds/readmodel/MongoDatabase") {
  static readonly config = MONGO_URL

  static readonly layerFromUrl = (url: Redacted.Redacted<string>) =>
    Layer.effect(
      MongoDatabase,
      Effect.gen(function* () {
        const plain = Redacted.value(url)
        const client = yield* Effect.acquireRelease(
          Effect.tryPromise({
            // A short server selection timeout: a service that cannot reach its database should say so at start.
            try: () => new MongoClient(plain, { serverSelectionTimeoutMS: 10_000, appName: "mds" }).connect(),
            catch: (cause) =>
              mongoError("connect to MongoDB")(cause instanceof Error ? cause.message.replaceAll(plain, "<MONGO_URL>") : cause)
          }),
          (client) => Effect.promise(() => client.close().catch(() => undefined))
        )
        return MongoDatabase.of({ db: client.db(databaseName(plain)) })
      })
    )

  static readonly layer = Layer.unwrap(Effect.map(MongoDatabase.config, MongoDatabase.layerFromUrl))
}
