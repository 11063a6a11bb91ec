// Conditional upsert of a MongoDB read-model document that carries lastSeq: a writer holding an older fold never moves it back.
import type { Collection, Filter, UpdateFilter } from "mongodb"
import { isDuplicateKey } from "./MongoDatabase.ts"

export interface SequencedDocument extends Record<string, unknown> {
  _id: string
}

/**
 * Sets `fields` on document `_id` unless it holds a later lastSeq (one of the same sequence is replaced). Fields not
 * named stay, e.g. a key's last-used time, and a document without lastSeq (only a last-used time so far) is filled in.
 *
 * When the filter does not match, the upsert tries an insert and hits the taken _id (E11000): either a later
 * document is stored, or a concurrent writer inserted first. One more try tells the two apart, because the document
 * exists by then (these documents are never deleted).
 */
export const setUnlessLater = async <D extends SequencedDocument>(
  collection: Collection<D>,
  _id: string,
  fields: Record<string, unknown>,
  lastSeq: number
): Promise<void> => {
  const filter = { _id, $or: [{ lastSeq: { $lte: lastSeq } }, { lastSeq: { $exists: false } }] } as Filter<D>
  for (let attempt = 1; ; attempt++) {
    try {
      await collection.updateOne(filter, { $set: fields } as UpdateFilter<D>, { upsert: true })
      return
    } catch (cause) {
      if (!isDuplicateKey(cause)) throw cause
      // A second E11000: the stored document is of a later sequence, and it stays.
      if (attempt >= 2) return
    }
  }
}
