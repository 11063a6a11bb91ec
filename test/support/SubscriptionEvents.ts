// Builders for subscription specs: one place that spells out a subscription's creation, a check, and an entry its
// playlist lists, with typical values.
import { archiveKeyOf } from "@mds/shared/domain/subscription/ArchiveKey"
import type { FoundEntry } from "@mds/shared/domain/subscription/SubscriptionCheckPlan"
import type {
  QueuedEntry,
  SubscriptionCheckPlanned,
  SubscriptionChecked,
  SubscriptionCreated,
  SubscriptionEntriesQueued
} from "@mds/shared/domain/subscription/SubscriptionEvent"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

export const SUBSCRIPTION_ID = "sub_a"
/** When the subscription is created. */
export const T0 = 1_767_225_600_000
/** Its check interval. */
export const HOUR = 3_600_000

/** An hourly subscription of project prj_a to a feed, without filters or backfill, created at T0. */
export const subscriptionCreated = (fields: Partial<SubscriptionCreated> = {}): SubscriptionCreated => ({
  _tag: "SubscriptionCreated",
  v: 1,
  subscriptionId: SUBSCRIPTION_ID,
  projectId: "prj_a",
  url: "https://feeds.example.com/channel.xml",
  platform: "generic",
  format: parseFormatId("audio_mp3"),
  checkEveryMs: HOUR,
  filters: {},
  backfill: 0,
  createdAt: T0,
  ...fields
})

/** A check recorded at `at` that found nothing new; the next one an hour later. */
export const subscriptionChecked = (at: number, fields: Partial<SubscriptionChecked> = {}): SubscriptionChecked => ({
  _tag: "SubscriptionChecked",
  v: 1,
  subscriptionId: SUBSCRIPTION_ID,
  at,
  found: 0,
  new: 0,
  filtered: 0,
  queued: 0,
  seen: [],
  nextCheckAt: at + HOUR,
  ...fields
})

/** An entry of the playlist, keyed as the generic extractor lists it (and under its former key). */
export const foundEntry = (id: string, fields: Partial<FoundEntry> = {}): FoundEntry => ({
  archiveKey: archiveKeyOf({ extractor: "Generic", id, url: `https://media.example.com/${id}.mp3` }),
  formerArchiveKey: `generic ent_${id}`,
  entryId: `ent_${id}`,
  url: `https://media.example.com/${id}.mp3`,
  title: `Episode ${id}`,
  durationSeconds: 600,
  publishedAt: T0,
  ...fields
})

/** An entry as a check queues it (its archive key as the generic extractor lists it). */
export const queuedEntry = (id: string): QueuedEntry => ({
  archiveKey: `generic ${id}`,
  entryId: `ent_${id}`,
  url: `https://media.example.com/${id}.mp3`,
  title: `Episode ${id}`
})

/** The plan of the check due at `dueAt`, made at `at`: nothing new, no limit, unless `fields` say otherwise. */
export const checkPlanned = (dueAt: number, at: number, fields: Partial<SubscriptionCheckPlanned> = {}): SubscriptionCheckPlanned => ({
  _tag: "SubscriptionCheckPlanned",
  v: 1,
  subscriptionId: SUBSCRIPTION_ID,
  dueAt,
  at,
  mediaId: "med_playlist",
  platform: "generic",
  found: 0,
  new: 0,
  filtered: 0,
  seen: [],
  refreshed: [],
  candidates: [],
  requeue: [],
  limit: null,
  hold: null,
  ...fields
})

/** The record (v2) of the check due at `dueAt`, at `at`, its counts as its plan's; the next check an hour later. */
export const planChecked = (dueAt: number, at: number, fields: Partial<SubscriptionChecked> = {}): SubscriptionChecked => ({
  ...subscriptionChecked(at),
  v: 2,
  dueAt,
  waiting: [],
  ...fields
})

/** The check's batch (v2: its entries stay the subscription's until they are done). */
export const entriesQueued = (batchId: string, entries: ReadonlyArray<QueuedEntry>, at: number): SubscriptionEntriesQueued => ({
  _tag: "SubscriptionEntriesQueued",
  v: 2,
  subscriptionId: SUBSCRIPTION_ID,
  batchId,
  entries,
  at
})
