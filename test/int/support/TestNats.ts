// Test layers: a throwaway nats-server per layer, the NatsClient connected to it, fixed lifetimes and streams ensured.
import { ConfigProvider, Context, Effect, Layer } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type NatsServer, startNatsServer } from "../../support/NatsServer.ts"

export class TestNatsServer extends Context.Service<TestNatsServer, NatsServer>()("mds/test/TestNatsServer") {
  static readonly layer = Layer.effect(
    TestNatsServer,
    Effect.acquireRelease(
      Effect.promise(() => startNatsServer()),
      (server) => Effect.promise(() => server.close())
    )
  )
}

export const testLifetimes: Lifetimes["Service"] = {
  mediaMs: 3_600_000,
  jobMs: 3_600_000,
  downloadUrlMs: 3_600_000,
  maxConcurrentJobs: 2
}

export const TestLifetimes = Layer.succeed(Lifetimes, testLifetimes)

/** NatsClient on the test server, configured the way production is: through NATS_URL. */
const natsClientOnTestServer = Layer.unwrap(
  Effect.gen(function* () {
    const server = yield* TestNatsServer
    return NatsClient.layer.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NATS_URL: server.url }))))
  })
)

const streamsEnsured = Layer.effectDiscard(ensureStreams)

/** Everything an adapter or projection under test needs from NATS: server, client, lifetimes, streams. */
export const TestNats = streamsEnsured.pipe(
  Layer.provideMerge(natsClientOnTestServer),
  Layer.provideMerge(TestLifetimes),
  Layer.provideMerge(TestNatsServer.layer)
)
