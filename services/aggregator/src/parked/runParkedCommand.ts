// Carries out `parked list|replay|drop` against MDS_PARKED; a replay is asked of the running aggregators and its outcome
// awaited (docs/operations.md, "Parked messages").
import { createInbox } from "@nats-io/transport-node"
import { NatsClient } from "@mds/shared/nats/NatsClient"
import { type ParkedEntry, type ReplayOutcome as Outcome, ReplayOutcome } from "@mds/shared/parked/ParkedMessage"
import { ParkedMessages } from "@mds/shared/parked/ParkedMessages"
import { Effect, Option, Schema } from "effect"
import type { ParkedCommand } from "./ParkedCommand.ts"

const decodeOutcome = Schema.decodeUnknownOption(Schema.fromJsonString(ReplayOutcome))

const firstLine = (text: string, width: number) => {
  const line = text.split("\n").find((part) => part.trim() !== "") ?? ""
  return line.length > width ? `${line.slice(0, width - 1)}…` : line
}

/** One line per parked message: what an operator needs to decide between a replay and a drop. */
export const parkedTable = (entries: ReadonlyArray<ParkedEntry>): string => {
  if (entries.length === 0) return "no parked messages"
  const rows = entries.map((entry) => [
    String(entry.id),
    entry.message.consumer,
    `${entry.message.stream} #${entry.message.seq}`,
    entry.message.subject,
    String(entry.message.attempts),
    new Date(entry.message.parkedAt).toISOString(),
    firstLine(entry.message.error, 100)
  ])
  const header = ["ID", "CONSUMER", "MESSAGE", "SUBJECT", "ATTEMPTS", "PARKED AT", "ERROR"]
  return [header, ...rows].map((row) => row.join("\t")).join("\n")
}

const outcomeLine = (outcome: Outcome): string => {
  switch (outcome.outcome) {
    case "replayed":
      return `${outcome.id}\treplayed`
    case "terminated":
      return `${outcome.id}\tterminated: the consumer could not read it; dropped`
    case "gone":
      return `${outcome.id}\tgone: nothing parked under that id (replayed or dropped before)`
    case "later":
      return `${outcome.id}\tlater: the consumer looks at it again later (${firstLine(outcome.error ?? "", 100)})`
    case "failed":
      return `${outcome.id}\tfailed again, parked again as ${outcome.parkedAgainAs ?? "?"}: ${firstLine(outcome.error ?? "", 100)}`
  }
}

const targets = (parked: ParkedMessages["Service"], target: Extract<ParkedCommand, { readonly target: unknown }>["target"]) =>
  target._tag === "All"
    ? parked.list(target.consumer ?? undefined)
    : Effect.map(parked.get(target.id), (entry) => (Option.isSome(entry) ? [entry.value] : []))

/** The lines to print and whether everything asked for was done. */
export const runParkedCommand = Effect.fn("runParkedCommand")(function* (command: ParkedCommand) {
  const parked = yield* ParkedMessages
  switch (command._tag) {
    case "ListParked":
      return { output: parkedTable(yield* parked.list(command.consumer ?? undefined)), ok: true }
    case "DropParked": {
      const entries = yield* targets(parked, command.target)
      const dropped = yield* Effect.forEach(entries, (entry) => parked.drop(entry.id))
      const count = dropped.filter(Boolean).length
      return { output: `dropped ${count}`, ok: command.target._tag === "All" || count === 1 }
    }
    case "ReplayParked": {
      const entries = yield* targets(parked, command.target)
      if (entries.length === 0) {
        return command.target._tag === "One"
          ? { output: outcomeLine({ id: command.target.id, outcome: "gone" }), ok: false }
          : { output: "no parked messages", ok: true }
      }
      const { connection } = yield* NatsClient
      const inbox = createInbox()
      const subscription = connection.subscribe(inbox)
      const outcomes = new Map<number, Outcome>()
      const lines: Array<string> = []
      for (const entry of entries) {
        if ((yield* parked.requestReplay(entry, inbox)) === "already") lines.push(`${entry.id}\talready asked for; still waiting`)
      }
      // Every outcome but `later` is final; wait for one per message asked for, at most --wait seconds.
      yield* Effect.promise(async () => {
        for await (const message of subscription) {
          const outcome = decodeOutcome(message.string())
          if (Option.isSome(outcome)) outcomes.set(outcome.value.id, outcome.value)
          if (outcomes.size === entries.length) return
        }
      }).pipe(Effect.timeoutOption(`${command.waitSeconds} seconds`))
      subscription.unsubscribe()
      for (const entry of entries) {
        const outcome = outcomes.get(entry.id)
        if (outcome !== undefined) lines.push(outcomeLine(outcome))
        else if (!lines.some((line) => line.startsWith(`${entry.id}\t`))) {
          lines.push(`${entry.id}\tasked for; no outcome within ${command.waitSeconds} s (is an aggregator running?)`)
        }
      }
      const ok = entries.every((entry) => {
        const outcome = outcomes.get(entry.id)?.outcome
        return outcome === "replayed" || outcome === "gone" || outcome === "terminated"
      })
      return { output: lines.join("\n"), ok }
    }
  }
})
