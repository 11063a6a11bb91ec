// Catches a stored document up with its subject: the events after its lastSeq, read from the stream, folded and written once.
import { Effect, Option } from "effect"
import type { SubjectHistory } from "./SubjectHistory.ts"

export interface SubjectCatchUp<Doc extends { readonly lastSeq: number }, Event, E, R> {
  readonly history: SubjectHistory["Service"]
  readonly stream: string
  readonly subject: string
  /** The delivered message's sequence: the document is caught up to it. */
  readonly uptoSeq: number
  /** The document as stored, null when there is none. */
  readonly stored: Doc | null
  readonly decode: (data: string) => Effect.Effect<Event, unknown>
  readonly evolve: (doc: Doc | null, event: Event, seq: number) => Doc | null
  readonly put: (doc: Doc) => Effect.Effect<void, E, R>
}

/**
 * Does not trust delivery order: a message nak'd and redelivered after a later one of the same subject is not lost,
 * because everything between the document's lastSeq and the delivered message is read from the stream. A message
 * that does not decode (poison) is stepped over.
 */
export const catchUpSubject = <Doc extends { readonly lastSeq: number }, Event, E, R>(options: SubjectCatchUp<Doc, Event, E, R>) =>
  Effect.gen(function* () {
    const { stored, uptoSeq } = options
    if (stored !== null && stored.lastSeq >= uptoSeq) return "unchanged" as const
    const raw = yield* options.history.range(options.stream, options.subject, stored?.lastSeq ?? 0, uptoSeq)
    let doc: Doc | null = stored
    for (const message of raw) {
      const event = yield* options.decode(message.data).pipe(Effect.option)
      if (Option.isSome(event)) doc = options.evolve(doc, event.value, message.seq)
    }
    if (doc === null || doc === stored) return "unchanged" as const
    yield* options.put(doc)
    return "written" as const
  })
