// Creates or updates the JetStream streams every service relies on; safe to run from every process at start.
import { DiscardPolicy, JetStreamApiCodes, RetentionPolicy, type StreamConfig, StorageType } from "@nats-io/jetstream"
import { nanos } from "@nats-io/transport-node"
import { Effect } from "effect"
import { Lifetimes } from "../config/Lifetimes.ts"
import { nullWhenNotFound, untilSettled } from "../nats/ClusterSettling.ts"
import { NatsClient } from "../nats/NatsClient.ts"
import { replicasOnStart } from "../nats/StreamReplicas.ts"
import { EventStoreError } from "./EventStore.ts"
import {
  ACCOUNTS_STREAM,
  ADMISSION_STREAM,
  CATALOG_STREAM,
  IDEMPOTENCY_STREAM,
  JOBS_STREAM,
  KEY_USAGE_STREAM,
  MEDIA_STREAM,
  PLATFORMS_STREAM,
  BATCHES_STREAM,
  COOKIES_STREAM,
  DESTINATIONS_STREAM,
  type StreamDef,
  ARCHIVE_STREAM,
  SUBSCRIPTIONS_STREAM,
  WEBHOOKS_STREAM,
  WORK_STREAM,
  PARKED_STREAM,
  PARKED_REPLAYS_STREAM
} from "../nats/Subjects.ts"

const HOUR_MS = 3_600_000
const DEDUP_WINDOW_MS = 2 * 60_000
const ADMISSION_KEPT_MS = 32 * 24 * HOUR_MS
/** Delivery attempts kept per project (and configuration changes, of which only the last matters). */
export const WEBHOOK_LOG_LIMIT = 1000
/** Parked messages kept per consumer: past it the oldest go (a consumer parking thousands is broken for everyone anyway). */
export const PARKED_PER_CONSUMER_LIMIT = 10_000

export const streamConfigs = (
  lifetimes: Lifetimes["Service"],
  replicas = 1
): ReadonlyArray<Partial<StreamConfig> & { name: string; num_replicas: number }> => {
  const base = (def: StreamDef, maxAgeMs: number) => ({
    name: def.name,
    num_replicas: replicas,
    subjects: [...def.subjects],
    storage: StorageType.File,
    retention: RetentionPolicy.Limits,
    max_age: maxAgeMs > 0 ? nanos(maxAgeMs) : 0,
    // JetStream refuses a dedup window longer than the max age (short lifetimes in tests, e.g. 8 s jobs).
    duplicate_window: nanos(maxAgeMs > 0 ? Math.min(DEDUP_WINDOW_MS, maxAgeMs) : DEDUP_WINDOW_MS),
    allow_direct: true,
    // The events of one decision are appended as one atomic batch (nats-server 2.12+).
    allow_atomic: true
  })
  return [
    // Kept long enough to rebuild every job that can still be read or downloaded.
    base(JOBS_STREAM, lifetimes.jobMs + lifetimes.downloadUrlMs + HOUR_MS),
    // Only each project's last event matters (it carries the held slots and the quota usage). Kept past a calendar
    // month: an idle project's last event must still tell this month's downloaded bytes; one older than 32 days is
    // of an earlier month, whose counts no longer apply anyway.
    { ...base(ADMISSION_STREAM, Math.max(2 * lifetimes.jobMs + HOUR_MS, ADMISSION_KEPT_MS)), max_msgs_per_subject: 16 },
    base(MEDIA_STREAM, lifetimes.mediaMs + HOUR_MS),
    // Projects, keys and users are kept for good: they are the source of truth for authentication.
    base(ACCOUNTS_STREAM, 0),
    // Only the latest use of each key matters, so usage never grows the accounts history.
    { ...base(KEY_USAGE_STREAM, 0), max_msgs_per_subject: 1 },
    { ...base(CATALOG_STREAM, 0), max_msgs_per_subject: 4 },
    { ...base(WORK_STREAM, lifetimes.jobMs), retention: RetentionPolicy.Workqueue },
    // A key is remembered as long as the job it names can be read.
    base(IDEMPOTENCY_STREAM, lifetimes.jobMs),
    // Endpoints are kept for good (each event holds the whole configuration); logs keep each project's last attempts.
    { ...base(WEBHOOKS_STREAM, 0), max_msgs_per_subject: WEBHOOK_LOG_LIMIT },
    // Only each platform's last event matters; a few more are kept to see how it got there.
    { ...base(PLATFORMS_STREAM, 0), max_msgs_per_subject: 16 },
    // A batch lives as long as a job (its entries are fed within that time) plus an hour to read its outcome.
    base(BATCHES_STREAM, lifetimes.jobMs + HOUR_MS),
    // Only each cookie file's latest metadata matters (rotations can be frequent).
    { ...base(COOKIES_STREAM, 0), max_msgs_per_subject: 4 },
    // Destinations are kept for good: a few events each, and the project's list is their fold.
    base(DESTINATIONS_STREAM, 0),
    // Subscriptions live until removed; their history is their checks (the seen keys, the counts).
    base(SUBSCRIPTIONS_STREAM, 0),
    // The archive is kept for good, as yt-dlp's archive file: an entry is never queued twice. One event per entry.
    { ...base(ARCHIVE_STREAM, 0), max_msgs_per_subject: 1 },
    // Parked messages wait for an operator (list, replay, drop), without an age limit; each consumer keeps its latest.
    { ...base(PARKED_STREAM, 0), max_msgs_per_subject: PARKED_PER_CONSUMER_LIMIT, discard: DiscardPolicy.Old },
    // One pending replay per parked message: a second request for it is refused while the first waits (taken once done).
    {
      ...base(PARKED_REPLAYS_STREAM, 0),
      retention: RetentionPolicy.Workqueue,
      max_msgs_per_subject: 1,
      discard: DiscardPolicy.New,
      discard_new_per_subject: true
    }
  ]
}

export const ensureStreams = Effect.gen(function* () {
  const { jsm, replicas } = yield* NatsClient
  const lifetimes = yield* Lifetimes
  for (const config of streamConfigs(lifetimes, replicas)) {
    // Safe to repeat after a timeout: a stream the timed-out request created is found and updated the next time.
    yield* untilSettled(async () => {
      const existing = await jsm.streams.info(config.name).catch(nullWhenNotFound(JetStreamApiCodes.StreamNotFound))
      if (existing === null) {
        await jsm.streams.add(config)
        return
      }
      // Retention and storage cannot change on an existing stream; everything else follows the config.
      const { name, retention: _retention, storage: _storage, ...update } = config
      await jsm.streams.update(name, { ...update, num_replicas: replicasOnStart(existing.config.num_replicas, config.num_replicas) })
    }).pipe(
      // Replicas above the cluster's size (or above 1 on a single server) fail here: the message names the setting.
      Effect.mapError(
        (cause) =>
          new EventStoreError({
            operation: `ensure stream ${config.name}`,
            message: `${String(cause)} (stream ${config.name}, NATS_REPLICAS=${replicas})`
          })
      )
    )
  }
})
