// The NATS connection with its JetStream contexts, as a scoped service (drained on shutdown).
import { type JetStreamClient, type JetStreamManager, jetstream, jetstreamManager } from "@nats-io/jetstream"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { Config, Context, Effect, Layer, Schema } from "effect"
import { unsupportedServerVersion } from "./NatsServerVersion.ts"
import { untilSettled } from "./ClusterSettling.ts"

export class NatsUnavailable extends Schema.TaggedError<NatsUnavailable>()("NatsUnavailable", {
  message: Schema.String
}) {}

export interface NatsClientShape {
  readonly connection: NatsConnection
  readonly js: JetStreamClient
  readonly jsm: JetStreamManager
  /** Version of the server we are connected to (at least MIN_NATS_SERVER_VERSION), for newer features that must be guarded. */
  readonly serverVersion: string
  /** NATS_REPLICAS: replicas every stream and KV bucket is created with, and raised to on start (never lowered). */
  readonly replicas: number
}

/**
 * Watches the connection's reconnects: one to a server older than the minimum is refused as the first connect is, with
 * the same message logged as an error and the connection closed (every later call fails, and the gateway's health
 * answers degraded) rather than carrying on against a server the services were never verified on.
 */
const refuseOlderServersOnReconnect = (connection: NatsConnection) =>
  Effect.promise(async () => {
    for await (const status of connection.status()) {
      if (status.type !== "reconnect") continue
      const tooOld = unsupportedServerVersion(connection.info?.version, status.server)
      if (tooOld !== null) return tooOld
    }
    return null
  }).pipe(
    Effect.flatMap((tooOld) =>
      tooOld === null
        ? Effect.void
        : Effect.logError("NATS connection closed: reconnected to a server older than the minimum", { reason: tooOld }).pipe(
            Effect.andThen(Effect.promise(() => connection.close().catch(() => undefined)))
          )
    )
  )

export class NatsClient extends Context.Service<NatsClient, NatsClientShape>()("mds/nats/NatsClient") {
  static readonly config = Config.all({
    url: Config.String("NATS_URL").pipe(Config.withDefault("nats://127.0.0.1:4222")),
    name: Config.String("SERVICE_NAME").pipe(Config.withDefault("mds")),
    // JetStream allows 1 to 5 replicas; 3 survives the loss of any one node of a 3-node cluster.
    replicas: Config.schema(Schema.Int.check(Schema.isBetween({ minimum: 1, maximum: 5 })), "NATS_REPLICAS").pipe(Config.withDefault(1))
  })

  /** Long-running services wait for NATS to come up (compose or systemd may start them first). */
  static readonly layer = NatsClient.layerWith({ waitForServer: true })

  /** One-shot tools (the admin CLI) fail at once with a clear message when NATS cannot be reached. */
  static readonly layerFailFast = NatsClient.layerWith({ waitForServer: false })

  static layerWith(options: { readonly waitForServer: boolean }) {
    return Layer.effect(
      NatsClient,
      Effect.gen(function* () {
        const { url, name, replicas } = yield* NatsClient.config
        const connection = yield* Effect.acquireRelease(
          Effect.tryPromise({
            try: () =>
              connect({
                servers: url.split(",").map((s) => s.trim()),
                name,
                maxReconnectAttempts: -1,
                reconnectTimeWait: 500,
                waitOnFirstConnect: options.waitForServer,
                // Without this, every request builds two errors with stack traces up front in case it fails: 6% of
                // the gateway's CPU under admission load. Failures still carry their message and code.
                noAsyncTraces: true
              }),
            catch: (cause) => new NatsUnavailable({ message: `cannot connect to NATS at ${url}: ${String(cause)}` })
          }),
          (nc) => Effect.promise(() => nc.drain().catch(() => undefined))
        )
        // Refused before anything is created on it: an older server fails later in ways that say nothing about versions.
        const tooOld = unsupportedServerVersion(connection.info?.version, url)
        if (tooOld !== null) return yield* new NatsUnavailable({ message: tooOld })
        // A reconnect may land on another node, possibly older (a cluster mid-upgrade or mid-rollback): checked again.
        yield* Effect.forkScoped(refuseOlderServersOnReconnect(connection))
        // Asks the server for the account's JetStream info: a cluster still settling does not answer yet, and is waited.
        const jsm = yield* untilSettled(() => jetstreamManager(connection)).pipe(
          Effect.mapError((cause) => new NatsUnavailable({ message: `JetStream is not enabled on ${url}: ${String(cause)}` }))
        )
        return NatsClient.of({
          connection,
          js: jetstream(connection),
          jsm,
          serverVersion: connection.info?.version ?? "unknown",
          replicas
        })
      })
    )
  }
}
