// Given MONGO_URL or not, then the read models come from MongoDB (its adapter imported on demand) or from NATS KV.
import { ConfigProvider, Effect, Exit, Layer, Option } from "effect"
import { afterAll, describe, expect, it } from "vitest"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { ReadModelLayer } from "@mds/shared/readmodel/ReadModelLayer"
import { startNatsServer } from "../../support/NatsServer.ts"

const nats = await startNatsServer()
afterAll(() => nats.close())

const readModelsWith = (env: Record<string, string>) =>
  ReadModelLayer.pipe(
    Layer.provide(Layer.mergeAll(NatsClient.layer, Lifetimes.layer)),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NATS_URL: nats.url, ...env })))
  )

describe("ReadModelLayer", () => {
  it("serves the read models from NATS KV without MONGO_URL", async () => {
    const found = await Effect.runPromise(
      Effect.gen(function* () {
        return yield* (yield* JobReadModel).get("prj_aaaaaaaaaaaaaaaaaaaaaaaa", "job_aaaaaaaaaaaaaaaaaaaaaaaa")
      }).pipe(Effect.provide(readModelsWith({})))
    )
    expect(Option.isNone(found)).toBe(true)
  })

  it("loads the MongoDB adapter when MONGO_URL is set: a malformed URL fails with the driver's own refusal", async () => {
    const exit = await Effect.runPromiseExit(
      Effect.gen(function* () {
        return yield* JobReadModel
      }).pipe(Effect.provide(readModelsWith({ MONGO_URL: "postgres://not-mongo" })))
    )
    expect(Exit.isFailure(exit)).toBe(true)
    // The driver itself parsed and refused the URL: the module was found and loaded on demand.
    expect(JSON.stringify(exit)).toMatch(/connect to MongoDB.*scheme/i)
  })
})
