// Port: the API key read model (what a key list shows, never a hash) written by the aggregator. Adapters: NATS KV, MongoDB, in-memory.
import { Context, type Effect, type Option } from "effect"
import type { KeyRecord, KeyView } from "../domain/account/AccountViews.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class KeyReadModel extends Context.Service<
  KeyReadModel,
  {
    get(projectId: string, keyId: string): Effect.Effect<Option.Option<KeyView>, ReadModelError>
    /** Insert or replace what the key events say (never a record of a later lastSeq); leaves the last-used time alone. */
    put(record: KeyRecord): Effect.Effect<void, ReadModelError>
    /** Raises the key's last-used time to `at` (an earlier time changes nothing); may come before the key's put. */
    recordUse(projectId: string, keyId: string, at: number): Effect.Effect<void, ReadModelError>
    /** The project's keys, newest first. */
    listByProject(projectId: string): Effect.Effect<ReadonlyArray<KeyView>, ReadModelError>
  }
>()("mds/readmodel/KeyReadModel") {}

export const newestKeyFirst = (a: KeyView, b: KeyView): number =>
  b.createdAt - a.createdAt || (a.keyId < b.keyId ? 1 : a.keyId > b.keyId ? -1 : 0)
