// Port: each job's share of its project's usage (by queued day), written by the aggregator's usage projection and read
// by GET /v1/usage and the dashboard. Adapters: NATS KV, MongoDB, in-memory.
import { Context, type Effect } from "effect"
import type { JobUsage } from "../domain/usage/JobUsage.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class UsageReadModel extends Context.Service<
  UsageReadModel,
  {
    /** Stores the job's usage, replacing what was stored for it unless that reflects a later event (lastSeq). */
    record(usage: JobUsage): Effect.Effect<void, ReadModelError>
    /** The usage of the project's jobs queued from `fromDay` to `toDay` (YYYY-MM-DD, inclusive), in no order. */
    listDays(projectId: string, fromDay: string, toDay: string): Effect.Effect<ReadonlyArray<JobUsage>, ReadModelError>
  }
>()("mds/readmodel/UsageReadModel") {}
