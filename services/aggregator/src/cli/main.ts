// SRE CLI of the aggregator: `projections rebuild [--projection jobs|media|projects|keys|usage|subscriptions] [--to kv|mongo]`
// (progress on stderr, counts on stdout) and `parked list|replay|drop` (messages a consumer set aside).
import { Cause, Effect, Exit, Layer, Option } from "effect"
import { Lifetimes } from "@mds/shared/config/Lifetimes"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { POINTER_REFRESH_MS } from "@mds/shared/readmodel/FollowedStore"
import type { ReadModelBackendKind } from "@mds/shared/readmodel/ReadModelBackend"
import { backendLayer, configuredBackend } from "@mds/shared/readmodel/ReadModelLayer"
import { makeProgressBar } from "../rebuild/ProgressBar.ts"
import { rebuildReadModel } from "../rebuild/ProjectionRebuild.ts"
import { parseRebuildCommand } from "../rebuild/RebuildCommand.ts"
import { exitQuietlyWhenOutputCloses } from "@mds/shared/runtime/ClosedOutput"
import { ensureStreams } from "@mds/shared/eventstore/StreamTopology"
import { ParkedMessages } from "@mds/shared/parked/ParkedMessages"
import { parseParkedCommand } from "../parked/ParkedCommand.ts"
import { runParkedCommand } from "../parked/runParkedCommand.ts"

/** Five pointer refreshes: every live process has followed the switch well before the old store is dropped. */
const GRACE_MS = 5 * POINTER_REFRESH_MS

/** No artifact store: documents hold no links, so a rebuild needs neither the link secret nor PUBLIC_BASE_URL. */
const rebuildLayer = (kind: ReadModelBackendKind) =>
  backendLayer(kind).pipe(Layer.provideMerge(Lifetimes.layer), Layer.provideMerge(NatsClient.layer))

exitQuietlyWhenOutputCloses()

/** Parked messages: the streams are made sure of (an aggregator may never have run), then the command runs. */
const parkedProgram = Effect.gen(function* () {
  const command = yield* parseParkedCommand(process.argv.slice(2))
  return yield* Effect.gen(function* () {
    yield* ensureStreams
    return yield* runParkedCommand(command)
  }).pipe(Effect.provide(ParkedMessages.layer.pipe(Layer.provideMerge(Lifetimes.layer), Layer.provideMerge(NatsClient.layerFailFast))))
})

const rebuildProgram = Effect.gen(function* () {
  const command = yield* parseRebuildCommand(process.argv.slice(2))
  const kind = command.to ?? (yield* configuredBackend)
  const results = yield* Effect.forEach(command.projections, (name) =>
    rebuildReadModel(name, { graceMs: GRACE_MS, progress: (readModel) => makeProgressBar(readModel.padEnd(8)) })
  ).pipe(Effect.scoped, Effect.provide(rebuildLayer(kind)))
  const output = results
    .map((r) => `${r.readModel}: ${r.events} events replayed into ${kind} store ${r.store} (was ${r.previous})`)
    .join("\n")
  return { output, ok: true }
})

const program: Effect.Effect<{ readonly output: string; readonly ok: boolean }, unknown> =
  process.argv[2] === "parked" ? parkedProgram : rebuildProgram
const exit = await Effect.runPromiseExit(program)
if (Exit.isSuccess(exit)) {
  process.stdout.write(`${exit.value.output}\n`)
  if (!exit.value.ok) process.exitCode = 1
} else {
  const failure = Cause.findErrorOption(exit.cause)
  const message =
    Option.isSome(failure) && typeof failure.value === "object" && failure.value !== null && "message" in failure.value
      ? String(failure.value.message)
      : Cause.pretty(exit.cause)
  process.stderr.write(`error: ${message}\n`)
  process.exitCode = 1
}
