// The services run on the pinned nats-server and refuse one older than the minimum at start, with a clear message.
import { execFileSync } from "node:child_process"
import { existsSync } from "node:fs"
import { ConfigProvider, Effect, Exit, Layer } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { MIN_NATS_SERVER_VERSION } from "@mds/shared/nats/NatsServerVersion"
import { eventually } from "../../support/Eventually.ts"
import { type NatsServer, natsServerBinary, startNatsServer } from "../../support/NatsServer.ts"

const connectTo = (url: string) =>
  Effect.runPromiseExit(
    Effect.map(NatsClient, (client) => client.serverVersion).pipe(
      Effect.provide(NatsClient.layerFailFast.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NATS_URL: url }))))),
      Effect.scoped
    )
  )

describe("the pinned nats-server", () => {
  let server: NatsServer
  beforeAll(async () => {
    server = await startNatsServer()
  })
  afterAll(() => server.close())

  it("is upstream 2.14.0, and the services accept it", async () => {
    expect(execFileSync(natsServerBinary(), ["--version"]).toString()).toContain("v2.14.0")
    const exit = await connectTo(server.url)
    expect(exit).toEqual(Exit.succeed("2.14.0"))
  })
})

// Debian 12's nats-server (2.9.10) is the older server at hand; a machine without it has no older release to start.
const DEBIAN_NATS_SERVER = "/usr/sbin/nats-server"
const debianVersion = existsSync(DEBIAN_NATS_SERVER)
  ? /v(\d+\.\d+\.\d+)/.exec(execFileSync(DEBIAN_NATS_SERVER, ["--version"]).toString())?.[1]
  : undefined
const olderThanMinimum =
  debianVersion !== undefined && debianVersion.localeCompare(MIN_NATS_SERVER_VERSION, undefined, { numeric: true }) < 0

describe.skipIf(!olderThanMinimum)(
  `a nats-server older than ${MIN_NATS_SERVER_VERSION} (needs ${DEBIAN_NATS_SERVER} < ${MIN_NATS_SERVER_VERSION})`,
  () => {
    let server: NatsServer
    beforeAll(async () => {
      server = await startNatsServer({ binary: DEBIAN_NATS_SERVER })
    })
    afterAll(() => server.close())

    it("is refused at connection, naming its version and the minimum", async () => {
      const exit = await connectTo(server.url)
      expect(Exit.isFailure(exit)).toBe(true)
      expect(String(Exit.isFailure(exit) ? exit.cause : "")).toContain(
        `nats-server ${debianVersion} at ${server.url} is too old: this service needs nats-server ${MIN_NATS_SERVER_VERSION} or newer`
      )
    })
  }
)

describe.skipIf(!olderThanMinimum)(
  `a reconnect to a nats-server older than ${MIN_NATS_SERVER_VERSION} (needs ${DEBIAN_NATS_SERVER} < ${MIN_NATS_SERVER_VERSION})`,
  () => {
    let pinned: NatsServer
    let older: NatsServer | undefined
    beforeAll(async () => {
      pinned = await startNatsServer()
    })
    afterAll(async () => {
      await older?.close()
      await pinned.close()
    })

    it("is refused as the first connect is: the connection is closed", async () => {
      const closed = await Effect.runPromise(
        Effect.gen(function* () {
          const { connection } = yield* NatsClient
          // The pinned server leaves its port to an older one: the client reconnects to the same address.
          yield* Effect.promise(async () => {
            await pinned.stop()
            older = await startNatsServer({ binary: DEBIAN_NATS_SERVER, port: pinned.port })
          })
          return yield* Effect.promise(() =>
            eventually(
              async () => connection.isClosed(),
              (isClosed) => isClosed,
              "the client to close its connection to the older server"
            )
          )
        }).pipe(
          Effect.provide(
            NatsClient.layerFailFast.pipe(Layer.provide(ConfigProvider.layer(ConfigProvider.fromUnknown({ NATS_URL: pinned.url }))))
          ),
          Effect.scoped
        )
      )
      expect(closed).toBe(true)
    })
  }
)
