// The quota limits that apply to a project now: its settings (read from its subject) under the server's defaults.
import { Clock, Config, Context, Effect, Layer, Schema } from "effect"
import { LRUCache } from "lru-cache"
import { parseByteSize } from "../../config/ByteSize.ts"
import { type ProjectQuotas, quotaLimits, subscriptionLimit } from "../../domain/account/ProjectQuotas.ts"
import type { QuotaLimits } from "../../domain/admission/Quota.ts"
import { EventStore, type EventStoreError } from "../../eventstore/EventStore.ts"
import { currentProject } from "./AccountCommands.ts"

const ByteSize = Schema.String.check(
  Schema.makeFilter((text: string) => {
    const parsed = parseByteSize(text)
    return typeof parsed === "string" ? parsed : undefined
  })
)

/** QUOTA_BYTES_PER_MONTH (e.g. 50GB) and QUOTA_JOBS_PER_DAY; unset: unlimited. */
export const quotaDefaults = Config.all({
  bytesPerMonth: Config.schema(ByteSize, "QUOTA_BYTES_PER_MONTH").pipe(
    Config.map((text): number | null => parseByteSize(text) as number),
    Config.withDefault(null)
  ),
  jobsPerDay: Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), "QUOTA_JOBS_PER_DAY").pipe(
    Config.map((n): number | null => n),
    Config.withDefault(null)
  )
})

/** SUBSCRIPTIONS_PER_PROJECT: the live subscriptions a project may have unless the operator set its own. */
export const subscriptionsDefault = Config.schema(Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), "SUBSCRIPTIONS_PER_PROJECT").pipe(
  Config.withDefault(100)
)

/** A setting changed with the admin CLI applies on every gateway within this long. */
const REMEMBERED_MS = 5_000
const CAPACITY = 10_000

export class ProjectQuotaReader extends Context.Service<
  ProjectQuotaReader,
  {
    readonly defaults: QuotaLimits
    limitsOf(projectId: string): Effect.Effect<QuotaLimits, EventStoreError>
    /** The most live subscriptions the project may have (null: no limit). */
    subscriptionLimitOf(projectId: string): Effect.Effect<number | null, EventStoreError>
  }
>()("mds/quota/ProjectQuotaReader") {
  /** The project's few events are read from its subject (a project is created, renamed, joined and limited rarely). */
  static readonly layer = Layer.effect(
    ProjectQuotaReader,
    Effect.gen(function* () {
      const store = yield* EventStore
      const defaults: QuotaLimits = yield* quotaDefaults
      const subscriptions = yield* subscriptionsDefault
      const known = new LRUCache<string, { readonly quotas: ProjectQuotas; readonly until: number }>({ max: CAPACITY })
      const quotasOf = Effect.fn("ProjectQuotaReader.quotasOf")(function* (projectId: string) {
        const now = yield* Clock.currentTimeMillis
        const hit = known.get(projectId)
        if (hit !== undefined && hit.until > now) return hit.quotas
        const { state } = yield* Effect.provideService(currentProject(projectId), EventStore, store)
        known.set(projectId, { quotas: state.quotas, until: now + REMEMBERED_MS })
        return state.quotas
      })
      return ProjectQuotaReader.of({
        defaults,
        limitsOf: (projectId) => Effect.map(quotasOf(projectId), (quotas) => quotaLimits(quotas, defaults)),
        subscriptionLimitOf: (projectId) => Effect.map(quotasOf(projectId), (quotas) => subscriptionLimit(quotas, subscriptions))
      })
    })
  )
}
