// Compare-and-set put of a NATS KV document that carries lastSeq: a writer holding an older fold never moves it back.
import type { KV } from "@nats-io/kv"
import { Schema } from "effect"

const decodeLastSeq = Schema.decodeUnknownOption(Schema.fromJsonString(Schema.Struct({ lastSeq: Schema.Number })))

export type ConditionalPut =
  /** `previous`: the JSON that was replaced, null when there was none. */
  | { readonly written: true; readonly previous: string | null }
  /** A document of a later lastSeq is stored; it stays. */
  | { readonly written: false }

/**
 * Writes `json` unless the stored document has a later lastSeq (one of the same sequence is replaced; one that does
 * not decode may be replaced). The revision check makes the read and the write one step even with several writers,
 * e.g. a rebuild beside the live aggregator.
 */
export const putUnlessLater = async (kv: KV, key: string, json: string, lastSeq: number, attempts = 5): Promise<ConditionalPut> => {
  for (let attempt = 1; ; attempt++) {
    const entry = await kv.get(key)
    const previous = entry !== null && entry.operation === "PUT" ? entry.string() : null
    const stored = previous === null ? undefined : decodeLastSeq(previous)
    if (stored !== undefined && stored._tag === "Some" && stored.value.lastSeq > lastSeq) return { written: false }
    try {
      if (entry === null) await kv.create(key, json)
      else await kv.update(key, json, entry.revision)
      return { written: true, previous }
    } catch (cause) {
      if (attempt >= attempts) throw cause
    }
  }
}
