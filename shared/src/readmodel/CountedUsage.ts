// The usage read model on any store with compare-and-set documents: per project and day one document of counters,
// per job one entry (its usage as the counters hold it). A job's change is a constant amount of work however many jobs
// the day has, and is counted exactly once under redelivery, retries, concurrent writers and a crash between writes.
import { Duration, Effect, Schema, Semaphore } from "effect"
import { LRUCache } from "lru-cache"
import { JobUsage } from "../domain/usage/JobUsage.ts"
import { noUsage, UsageDayCounts, withJobChange } from "../domain/usage/UsageDayCounts.ts"
import { ReadModelError } from "./ReadModelError.ts"
import { UsageReadModel } from "./UsageReadModel.ts"

/**
 * A day's counters and, beside them, the usage of each job whose change they hold but whose entry may not be written
 * yet (`pending`): the record that makes the counters and the job's entry agree across a crash between the two writes.
 * An entry stays there only between the two writes, so its size is the writes in flight, not the day's jobs.
 */
export const UsageDayDocument = Schema.Struct({
  ...UsageDayCounts.fields,
  pending: Schema.Record(Schema.String, JobUsage)
})
export type UsageDayDocument = typeof UsageDayDocument.Type

/** A stored document and the version a compare-and-set expects (a KV revision, a counter). */
export interface Versioned<A> {
  readonly value: A
  readonly version: number
}

/** What a store gives: documents read with their version and written only over that version (null: none stored). */
export interface UsageDocuments {
  getDay(projectId: string, day: string): Effect.Effect<Versioned<UsageDayDocument> | null, ReadModelError>
  /** The new version, or null when another write came first (the document is not the `expected` version any more). */
  putDay(doc: UsageDayDocument, expected: number | null): Effect.Effect<number | null, ReadModelError>
  getJob(projectId: string, jobId: string): Effect.Effect<Versioned<JobUsage> | null, ReadModelError>
  putJob(usage: JobUsage, expected: number | null): Effect.Effect<number | null, ReadModelError>
  /** The day documents of the range that exist, in no order: at most one per day. */
  listDays(projectId: string, fromDay: string, toDay: string): Effect.Effect<ReadonlyArray<UsageDayDocument>, ReadModelError>
}

/** Compare-and-set conflicts with other writers of the same day before a change gives up (and is delivered again). */
const ATTEMPTS = 50

/** Days whose document this process last read or wrote are kept (a day's next change needs no read of it). */
const KNOWN_DAYS = 1_000

/** After a conflict (another process wrote the day), a random pause of up to 2^attempt ms (at most 100 ms). */
const backOff = (attempt: number) => Effect.sleep(Duration.millis(Math.random() * Math.min(100, 2 ** attempt)))

const countsOf = ({ pending: _pending, ...counts }: UsageDayDocument): UsageDayCounts => counts

const conflicted = (what: string) =>
  new ReadModelError({ operation: `record usage`, message: `${what}: ${ATTEMPTS} compare-and-set conflicts in a row` })

/**
 * `record(usage)` makes the job's share of its day's counters what `usage` says, unless they hold a later one:
 *
 * 1. Read the day. What the counters hold of the job is its pending change if the day has one (the latest change
 *    applied), else its entry (read then). If that is as late as `usage` (by `lastSeq`), it was applied: go to 3.
 * 2. Write the day: the job's old share out, the new one in, `usage` as the job's pending change, in one
 *    compare-and-set (on a conflict: from 1).
 * 3. Write the job's entry up to the latest change applied (unless it is there already).
 * 4. The pending change is now settled: it is dropped from the day by the day's next write in this process (step 2 of
 *    another change), or by a write of its own when no other change of the day waits.
 *
 * A crash after 2 leaves the pending change, which the next delivery (or the job's next change) reads as what the
 * counters hold: nothing is counted twice, nothing lost; after 3, it is dropped by a later write. Under load a change
 * costs a read and a write of the day and of the job's entry; the day's document holds only changes in flight.
 */
export const countedUsage = (documents: UsageDocuments): UsageReadModel["Service"] => {
  /**
   * Per project and day in this process: one change at a time (a busy day's changes, on all of the consumer's lanes,
   * wait for each other here rather than lose compare-and-sets to each other; other processes' writes still conflict
   * now and then, and are backed off from), and the pending changes whose entries are written, by job.
   */
  interface DayState {
    readonly lock: Semaphore.Semaphore
    users: number
    readonly settled: Map<string, number>
  }
  const days = new Map<string, DayState>()
  /**
   * The day documents as this process last read or wrote them, by day: a change starts from it without reading. Every
   * decision taken from it is written with a compare-and-set on its version, so one another process changed since is
   * simply read afresh after the conflict.
   */
  const known = new LRUCache<string, Versioned<UsageDayDocument>>({ max: KNOWN_DAYS })
  const withDay = <A, E>(key: string, effect: (state: DayState) => Effect.Effect<A, E>) =>
    Effect.acquireUseRelease(
      Effect.sync(() => {
        let state = days.get(key)
        if (state === undefined) {
          state = { lock: Semaphore.makeUnsafe(1), users: 0, settled: new Map() }
          days.set(key, state)
        }
        state.users++
        return state
      }),
      (state) => state.lock.withPermits(1)(effect(state)),
      (state) =>
        Effect.sync(() => {
          state.users--
          if (state.users === 0) days.delete(key)
        })
    )

  /** The day's pending changes less those settled (unless a later change of the job is pending since). */
  const unsettled = (pending: UsageDayDocument["pending"], settled: ReadonlyMap<string, number>) =>
    Object.fromEntries(Object.entries(pending).filter(([jobId, change]) => (settled.get(jobId) ?? -1) < change.lastSeq))

  /** Step 3: the job's entry up to `applied`; `read`, the entry as just read, spares the first read. */
  const writeEntry = (applied: JobUsage, read?: Versioned<JobUsage> | null) =>
    Effect.gen(function* () {
      for (let attempt = 1; ; attempt++) {
        const entry = attempt === 1 && read !== undefined ? read : yield* documents.getJob(applied.projectId, applied.jobId)
        if (entry !== null && entry.value.lastSeq >= applied.lastSeq) return
        if ((yield* documents.putJob(applied, entry?.version ?? null)) !== null) return
        if (attempt >= ATTEMPTS) return yield* conflicted(`job ${applied.jobId}`)
        yield* backOff(attempt)
      }
    })

  const readDay = (key: string, projectId: string, dayOf: string) =>
    Effect.tap(documents.getDay(projectId, dayOf), (day) =>
      Effect.sync(() => {
        if (day === null) known.delete(key)
        else known.set(key, day)
      })
    )

  const change = (usage: JobUsage, key: string, state: DayState) =>
    Effect.gen(function* () {
      for (let attempt = 1; ; attempt++) {
        const day = (attempt === 1 ? known.get(key) : undefined) ?? (yield* readDay(key, usage.projectId, usage.day))
        const pending = day?.value.pending[usage.jobId]
        const entry = pending === undefined ? yield* documents.getJob(usage.projectId, usage.jobId) : undefined
        const held = pending ?? entry?.value ?? null
        if (held !== null && held.lastSeq >= usage.lastSeq) {
          yield* writeEntry(held, entry)
          state.settled.set(usage.jobId, held.lastSeq)
          return
        }
        const kept = unsettled(day?.value.pending ?? {}, state.settled)
        const counts = withJobChange(day === null ? noUsage(usage.projectId, usage.day) : countsOf(day.value), held, usage)
        const doc: UsageDayDocument = { ...counts, pending: { ...kept, [usage.jobId]: usage } }
        const version = yield* documents.putDay(doc, day?.version ?? null)
        if (version !== null) {
          known.set(key, { value: doc, version })
          for (const jobId of Object.keys(day?.value.pending ?? {})) if (!(jobId in kept)) state.settled.delete(jobId)
          yield* writeEntry(usage, entry)
          state.settled.set(usage.jobId, usage.lastSeq)
          return
        }
        if (attempt >= ATTEMPTS) return yield* conflicted(`day ${usage.projectId} ${usage.day}`)
        yield* backOff(attempt)
      }
    })

  /** Step 4 on its own, when no other change of the day waits to do it. */
  const dropSettled = (key: string, projectId: string, dayOf: string, state: DayState) =>
    Effect.gen(function* () {
      for (let attempt = 1; ; attempt++) {
        const day = (attempt === 1 ? known.get(key) : undefined) ?? (yield* readDay(key, projectId, dayOf))
        if (day === null) return
        const kept = unsettled(day.value.pending, state.settled)
        if (Object.keys(kept).length === Object.keys(day.value.pending).length) return
        const doc: UsageDayDocument = { ...day.value, pending: kept }
        const version = yield* documents.putDay(doc, day.version)
        if (version !== null) {
          known.set(key, { value: doc, version })
          state.settled.clear()
          return
        }
        if (attempt >= ATTEMPTS) return yield* conflicted(`day ${projectId} ${dayOf}`)
        yield* backOff(attempt)
      }
    })

  const record = Effect.fn("UsageReadModel.record")(function* (usage: JobUsage) {
    const key = `${usage.projectId}\u0000${usage.day}`
    return yield* withDay(key, (state) =>
      Effect.andThen(
        change(usage, key, state),
        // Asked once the change is done: is another change of the day waiting (it drops what is settled)?
        Effect.suspend(() => (state.users === 1 ? dropSettled(key, usage.projectId, usage.day, state) : Effect.void))
      )
    )
  })

  return UsageReadModel.of({
    record,
    listDays: (projectId, fromDay, toDay) => Effect.map(documents.listDays(projectId, fromDay, toDay), (docs) => docs.map(countsOf))
  })
}
