// Admin CLI entry point: `node services/gateway/src/cli/main.ts project create NAME | key create ... | user create EMAIL | ...`.
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { parseAdminCommand } from "./AdminCommand.ts"
import { runAdminCommand } from "./runAdminCommand.ts"
import { exitQuietlyWhenOutputCloses } from "@mds/shared/runtime/ClosedOutput"

const CliLayer = Layer.mergeAll(JetStreamEventStore, Lifetimes.layer).pipe(Layer.provideMerge(NatsClient.layerFailFast))

/** All of standard input (for --password-stdin); empty when there is none. */
const readStdin = Effect.promise(async () => {
  if (process.stdin.isTTY) return ""
  const chunks: Array<Buffer> = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
})

const describeFailure = (failure: { readonly _tag: string } & Record<string, unknown>): string => {
  switch (failure._tag) {
    case "UsageError":
      return String(failure["message"])
    case "ProjectNotFound":
      return `project ${String(failure["projectId"])} does not exist`
    case "ApiKeyNotFound":
      return `key ${String(failure["keyId"])} does not exist`
    case "UserNotFound":
      return `no dashboard user has the email ${String(failure["email"])}`
    case "UserAlreadyExists":
      return `a dashboard user with the email ${String(failure["email"])} already exists`
    case "ProjectLimitReached":
      return `the user ${String(failure["email"])} may create no more projects (limit ${String(failure["limit"])})`
    case "DestinationNotFound":
      return `destination ${String(failure["destinationId"])} does not exist in that project or was removed`
    case "WebhookNotConfigured":
      return `project ${String(failure["projectId"])} has no webhook`
    default:
      return `${failure._tag}: ${String(failure["message"] ?? "")}`
  }
}

exitQuietlyWhenOutputCloses()

const program = Effect.gen(function* () {
  const command = yield* parseAdminCommand(process.argv.slice(2))
  // Only commands that reach NATS need the connection; a usage error fails before it is opened.
  return yield* Effect.gen(function* () {
    yield* ensureStreams
    return yield* runAdminCommand(command, { readStdin })
  }).pipe(Effect.provide(CliLayer))
})

const exit = await Effect.runPromiseExit(program)
if (Exit.isSuccess(exit)) {
  if (exit.value !== "") process.stdout.write(`${exit.value}\n`)
} else {
  const failure = Cause.findErrorOption(exit.cause)
  process.stderr.write(`error: ${Option.isSome(failure) ? describeFailure(failure.value as never) : Cause.pretty(exit.cause)}\n`)
  process.exitCode = 1
}
