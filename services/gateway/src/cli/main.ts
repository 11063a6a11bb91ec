// Admin CLI entry point: `node services/gateway/src/cli/main.ts project create NAME | key create ... | key revoke ...`.
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { parseAdminCommand } from "./AdminCommand.ts"
import { runAdminCommand } from "./runAdminCommand.ts"

const CliLayer = Layer.mergeAll(JetStreamEventStore, Lifetimes.layer).pipe(Layer.provideMerge(NatsClient.layer))

const describeFailure = (failure: { readonly _tag: string } & Record<string, unknown>): string => {
  switch (failure._tag) {
    case "UsageError":
      return String(failure["message"])
    case "ProjectNotFound":
      return `project ${String(failure["projectId"])} does not exist`
    case "ApiKeyNotFound":
      return `key ${String(failure["keyId"])} does not exist`
    case "WebhookNotConfigured":
      return `project ${String(failure["projectId"])} has no webhook`
    default:
      return `${failure._tag}: ${String(failure["message"] ?? "")}`
  }
}

const program = Effect.gen(function*() {
  const command = yield* parseAdminCommand(process.argv.slice(2))
  // Only commands that reach NATS need the connection; a usage error fails before it is opened.
  return yield* Effect.gen(function*() {
    yield* ensureStreams
    return yield* runAdminCommand(command)
  }).pipe(Effect.provide(CliLayer))
})

const exit = await Effect.runPromiseExit(program)
if (Exit.isSuccess(exit)) {
  if (exit.value !== "") process.stdout.write(`${exit.value}\n`)
} else {
  const failure = Cause.findErrorOption(exit.cause)
  process.stderr.write(
    `error: ${Option.isSome(failure) ? describeFailure(failure.value as never) : Cause.pretty(exit.cause)}\n`
  )
  process.exitCode = 1
}
