// Creates many projects with one key each straight through the admin use case (no CLI process per key), for load tests.
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { ConfigProvider, Effect, Layer } from "effect"
import { runAdminCommand } from "../../services/gateway/src/cli/runAdminCommand.ts"

export interface ProjectKey {
  readonly projectId: string
  readonly key: string
}

/** `env` is the stack's environment (NATS_URL, API_KEY_PEPPER). */
export const provisionProjects = (env: Readonly<Record<string, string>>, count: number): Promise<ReadonlyArray<ProjectKey>> => {
  const layer = Layer.mergeAll(JetStreamEventStore, Lifetimes.layer).pipe(
    Layer.provideMerge(NatsClient.layer),
    Layer.provide(ConfigProvider.layer(ConfigProvider.fromEnvRecord({ ...env })))
  )
  const one = (index: number) =>
    Effect.gen(function* () {
      const projectId = yield* runAdminCommand({ _tag: "CreateProject", name: `bench-${index}` })
      const key = yield* runAdminCommand({
        _tag: "CreateKey",
        projectId,
        name: "bench",
        scopes: ["media:resolve", "media:download"],
        environment: "test"
      })
      return { projectId, key }
    })
  return Effect.runPromise(
    Effect.forEach(
      Array.from({ length: count }, (_, i) => i),
      one,
      { concurrency: 32 }
    ).pipe(Effect.provide(layer), Effect.provideService(ConfigProvider.ConfigProvider, ConfigProvider.fromEnvRecord({ ...env })))
  )
}
