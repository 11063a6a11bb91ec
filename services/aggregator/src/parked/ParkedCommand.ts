// The SRE commands on parked messages, `parked list|replay|drop`, decoded from argv with Schema.
import { Effect, Schema } from "effect"
import { UsageError } from "../rebuild/RebuildCommand.ts"

/** One parked message by its id, or every one (of a consumer). */
const Target = Schema.Union([
  Schema.TaggedStruct("One", { id: Schema.Int.check(Schema.isGreaterThan(0)) }),
  Schema.TaggedStruct("All", { consumer: Schema.NullOr(Schema.String) })
])

export const ParkedCommand = Schema.Union([
  Schema.TaggedStruct("ListParked", { consumer: Schema.NullOr(Schema.String) }),
  Schema.TaggedStruct("ReplayParked", {
    target: Target,
    /** How long to wait for the outcomes before saying which are still to come. */
    waitSeconds: Schema.Int.check(Schema.isBetween({ minimum: 0, maximum: 3600 }))
  }),
  Schema.TaggedStruct("DropParked", { target: Target })
])
export type ParkedCommand = typeof ParkedCommand.Type

export const PARKED_USAGE = `usage:
  parked list [--consumer NAME]
  parked replay ID|--all [--consumer NAME] [--wait SECONDS]   (default: wait 30 s for the outcome)
  parked drop ID|--all [--consumer NAME]`

const decode = Schema.decodeUnknownEffect(ParkedCommand)
const FLAGS: Readonly<Record<string, ReadonlyArray<string>>> = {
  list: ["consumer"],
  replay: ["all", "consumer", "wait"],
  drop: ["all", "consumer"]
}

export const parseParkedCommand = (argv: ReadonlyArray<string>): Effect.Effect<ParkedCommand, UsageError> => {
  const [noun, verb, ...rest] = argv
  const known = verb === undefined ? undefined : FLAGS[verb]
  if (noun !== "parked" || known === undefined) return Effect.fail(new UsageError({ message: PARKED_USAGE }))
  const flags: Record<string, string> = {}
  const words: Array<string> = []
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] ?? ""
    const match = /^--([a-z]+)(?:=(.*))?$/u.exec(arg)
    if (match === null) {
      words.push(arg)
      continue
    }
    const name = match[1] ?? ""
    if (!known.includes(name)) return Effect.fail(new UsageError({ message: `unknown argument ${arg}\n${PARKED_USAGE}` }))
    flags[name] = name === "all" ? "true" : (match[2] ?? rest[++i] ?? "")
  }
  const consumer = flags["consumer"] ?? null
  const all = flags["all"] === "true"
  if (
    words.length > (verb === "list" || all ? 0 : 1) ||
    (verb !== "list" && !all && words.length === 0) ||
    (consumer !== null && !all && verb !== "list")
  ) {
    return Effect.fail(new UsageError({ message: PARKED_USAGE }))
  }
  const target = all ? { _tag: "All", consumer } : { _tag: "One", id: Number(words[0]) }
  const candidate =
    verb === "list"
      ? { _tag: "ListParked", consumer }
      : verb === "replay"
        ? { _tag: "ReplayParked", target, waitSeconds: Number(flags["wait"] ?? "30") }
        : { _tag: "DropParked", target }
  return decode(candidate).pipe(Effect.mapError((error) => new UsageError({ message: `${error.message}\n${PARKED_USAGE}` })))
}
