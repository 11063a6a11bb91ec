// The SRE command `projections rebuild [--projection jobs|media|projects|keys|usage|subscriptions] [--to kv|mongo]`, decoded from argv with Schema.
import { Effect, Schema } from "effect"
import { READ_MODEL_NAMES } from "@mds/shared/readmodel/ReadModelBackend"

export const RebuildCommand = Schema.Struct({
  /** Which read models to rebuild; all of them when --projection is not given. */
  projections: Schema.NonEmptyArray(Schema.Literals(READ_MODEL_NAMES)),
  /** Which backend to build into; the configured one (MONGO_URL or KV) when --to is not given. */
  to: Schema.NullOr(Schema.Literals(["kv", "mongo"]))
})
export type RebuildCommand = typeof RebuildCommand.Type

export const USAGE = `usage:
  projections rebuild [--projection ${READ_MODEL_NAMES.join("|")}] [--to kv|mongo]`

export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", { message: Schema.String }) {}

const decode = Schema.decodeUnknownEffect(RebuildCommand)

export const parseRebuildCommand = (argv: ReadonlyArray<string>): Effect.Effect<RebuildCommand, UsageError> => {
  const [noun, verb, ...rest] = argv
  if (noun !== "projections" || verb !== "rebuild") return Effect.fail(new UsageError({ message: USAGE }))
  const flags: Record<string, string> = {}
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? ""
    const match = /^--(projection|to)(?:=(.*))?$/.exec(arg)
    if (match === null) return Effect.fail(new UsageError({ message: `unknown argument ${arg}\n${USAGE}` }))
    flags[match[1]!] = match[2] ?? rest[++i] ?? ""
  }
  return decode({
    projections: flags["projection"] === undefined ? READ_MODEL_NAMES : [flags["projection"]],
    to: flags["to"] ?? null
  }).pipe(Effect.mapError((error) => new UsageError({ message: `${error.message}\n${USAGE}` })))
}
