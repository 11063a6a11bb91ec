// Port: a project's usage per UTC day (by the day its jobs were queued), written by the aggregator's usage projection
// from each job's changes and read by GET /v1/usage and the dashboard. Adapters: NATS KV, MongoDB, in-memory.
import { Context, type Effect } from "effect"
import type { JobUsage } from "../domain/usage/JobUsage.ts"
import type { UsageDayCounts } from "../domain/usage/UsageDayCounts.ts"
import type { ReadModelError } from "./ReadModelError.ts"

export class UsageReadModel extends Context.Service<
  UsageReadModel,
  {
    /**
     * Makes the job's share of its day's counters what `usage` says, unless they hold a later one (lastSeq): a
     * repeated or older change counts nothing. A constant amount of work however many jobs the day has.
     */
    record(usage: JobUsage): Effect.Effect<void, ReadModelError>
    /** The counters of the project's days from `fromDay` to `toDay` (YYYY-MM-DD, inclusive) that have any, in no order. */
    listDays(projectId: string, fromDay: string, toDay: string): Effect.Effect<ReadonlyArray<UsageDayCounts>, ReadModelError>
  }
>()("mds/readmodel/UsageReadModel") {}
