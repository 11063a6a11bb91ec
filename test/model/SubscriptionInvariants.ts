// The subscriptions' invariants, each written once: every entry a subscription owns is downloaded, in flight, waiting
// or given up with a reason (never dropped, never downloaded twice); a removed or paused subscription queues nothing
// after the removal or pause is recorded; what became of an entry is recorded once it is known.
import { Schema } from "effect"
import { entryJobId } from "@mds/shared/application/batch/EntryJobId"
import { ArchiveEvent } from "@mds/shared/domain/archive/ArchiveEvent"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { evolveBatch, initialBatchState, type BatchState } from "@mds/shared/domain/batch/BatchState"
import { isRetryableFailure } from "@mds/shared/domain/job/JobFailures"
import { hasEnded, type JobState, jobStatus } from "@mds/shared/domain/job/JobState"
import { sightingOf } from "@mds/shared/domain/subscription/EntryOutcomes"
import { SubscriptionEvent } from "@mds/shared/domain/subscription/SubscriptionEvent"
import { evolveSubscription, inFlightEntries, type SubscriptionState } from "@mds/shared/domain/subscription/SubscriptionState"
import { batchSubject, jobSubject, subscriptionSubject } from "@mds/shared/nats/Subjects"
import type { FollowedFeed } from "./Subscriptions.ts"
import type { World } from "./World.ts"

const decodeSubscription = Schema.decodeUnknownSync(SubscriptionEvent)
const decodeBatch = Schema.decodeUnknownSync(BatchEvent)
const decodeArchive = Schema.decodeUnknownSync(ArchiveEvent)

const eventsOf = (world: World, feed: FollowedFeed) => {
  const subject = subscriptionSubject(feed.projectId, feed.subscriptionId)
  return world.store
    .messages()
    .filter((m) => m.subject === subject)
    .map((m) => decodeSubscription(m.payload))
}

const stateOf = (world: World, feed: FollowedFeed): SubscriptionState =>
  eventsOf(world, feed).reduce<SubscriptionState>(evolveSubscription, null)

const batchOf = (world: World, projectId: string, batchId: string): BatchState => {
  const subject = batchSubject(projectId, batchId)
  return world.store
    .messages()
    .filter((m) => m.subject === subject)
    .reduce((state, m) => evolveBatch(state, decodeBatch(m.payload)), initialBatchState())
}

/** Every job of a subscription's entry, with the archive key of the entry (from the batches its checks made). */
const entryJobs = (world: World) => {
  const jobs: Array<{ readonly feed: FollowedFeed; readonly archiveKey: string; readonly jobId: string; readonly batchId: string }> = []
  for (const feed of world.subscriptions) {
    const keyOf = new Map<string, string>()
    for (const event of eventsOf(world, feed)) {
      if (event._tag === "SubscriptionCheckPlanned") for (const c of event.candidates) keyOf.set(c.entryId, c.archiveKey)
    }
    for (const message of world.store.messages()) {
      if (message.stream !== "MDS_BATCHES") continue
      const event = decodeBatch(message.payload)
      if (event._tag !== "BatchCreated" || event.subscriptionId !== feed.subscriptionId) continue
      for (const entry of event.entries) {
        const archiveKey = keyOf.get(entry.entryId)
        if (archiveKey !== undefined)
          jobs.push({ feed, archiveKey, jobId: entryJobId(event.batchId, entry.entryId), batchId: event.batchId })
      }
    }
  }
  return jobs
}

/** A job that may still download: not ended, or failed retryably within its lifetime (a retry may run it again). */
const mayStillRun = (state: JobState, now: number): boolean =>
  state !== null &&
  (!hasEnded(state) ||
    (jobStatus(state) === "failed" && state.error !== null && isRetryableFailure(state.error.code) && now < state.expiresAt))

/** Never downloaded twice: per project and entry, one completed job at most, and one job at a time that may still run. */
export const entriesDownloadedOnce = (world: World): ReadonlyArray<string> => {
  const states = world.jobStates()
  const byEntry = new Map<string, Array<string>>()
  for (const { feed, archiveKey, jobId } of entryJobs(world)) {
    const key = `${feed.projectId} ${archiveKey}`
    byEntry.set(key, [...(byEntry.get(key) ?? []), jobId])
  }
  const problems: Array<string> = []
  for (const [entry, jobIds] of byEntry) {
    const projectId = entry.split(" ")[0] ?? ""
    const jobs = jobIds.map((jobId) => ({ jobId, state: states.get(jobSubject(projectId, jobId)) ?? null }))
    const completed = jobs.filter((job) => jobStatus(job.state) === "completed")
    const live = jobs.filter((job) => mayStillRun(job.state, world.clock.now))
    if (completed.length > 1) problems.push(`${entry} was downloaded by ${completed.map((j) => j.jobId).join(" and ")}`)
    if (live.length > 1) problems.push(`${entry} has ${live.length} jobs that may still run: ${live.map((j) => j.jobId).join(", ")}`)
  }
  return problems
}

/**
 * Never silently dropped: an entry a live subscription owns in its project's archive is in its open plan, in flight or
 * waiting among its entries, or was recorded downloaded or given up (with a reason).
 */
export const entriesAccountedFor = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  for (const feed of world.subscriptions) {
    const state = stateOf(world, feed)
    if (state === null || state.removed) continue
    const owned = new Set<string>()
    const seenSubjects = new Set<string>()
    for (const message of world.store.messages()) {
      if (message.stream !== "MDS_ARCHIVE" || seenSubjects.has(message.subject)) continue
      seenSubjects.add(message.subject)
      const first = decodeArchive(message.payload)
      if (first.projectId === feed.projectId && first.claimId.startsWith(`${feed.subscriptionId}@`)) owned.add(first.archiveKey)
    }
    const done = new Set<string>()
    for (const event of eventsOf(world, feed)) {
      if (event._tag !== "SubscriptionEntriesSettled") continue
      for (const outcome of event.outcomes) if (outcome.result !== "waiting") done.add(outcome.archiveKey)
    }
    const tracked = new Set(state.entries.map((entry) => entry.archiveKey))
    const planned = new Set((state.plan?.candidates ?? []).map((entry) => entry.archiveKey))
    for (const key of owned) {
      if (!tracked.has(key) && !planned.has(key) && !done.has(key)) {
        problems.push(`${feed.subscriptionId} owns ${key}, which is neither planned, in flight, waiting, downloaded nor given up`)
      }
    }
  }
  return problems
}

/** Whether the subscription was paused (and not resumed) or removed as of the first `upto` stored messages. */
const stoppedAt = (world: World, feed: FollowedFeed, upto: number): "paused" | "removed" | null => {
  const subject = subscriptionSubject(feed.projectId, feed.subscriptionId)
  let stopped: "paused" | "removed" | null = null
  for (const message of world.store.messages().slice(0, upto)) {
    if (message.subject !== subject) continue
    const tag = decodeSubscription(message.payload)._tag
    if (tag === "SubscriptionRemoved") stopped = "removed"
    else if (tag === "SubscriptionPaused" && stopped === null) stopped = "paused"
    else if (tag === "SubscriptionResumed" && stopped === "paused") stopped = null
  }
  return stopped
}

/**
 * A removed or paused subscription queues nothing after the removal or pause is recorded: no plan, record or queued
 * entries on its subject after it, and no entry of its batches started by a feed that began after it.
 */
export const nothingQueuedWhenStopped = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const messages = world.store.messages()
  for (const feed of world.subscriptions) {
    const subject = subscriptionSubject(feed.projectId, feed.subscriptionId)
    messages.forEach((message, index) => {
      if (message.subject !== subject) return
      const tag = decodeSubscription(message.payload)._tag
      if (tag !== "SubscriptionCheckPlanned" && tag !== "SubscriptionEntriesQueued" && tag !== "SubscriptionChecked") return
      const stopped = stoppedAt(world, feed, index)
      if (stopped !== null) problems.push(`${feed.subscriptionId} recorded ${tag} after it was ${stopped}`)
    })
  }
  const batchOwner = new Map<string, FollowedFeed>()
  for (const { feed, batchId } of entryJobs(world)) batchOwner.set(batchId, feed)
  for (const { message, writer } of world.written) {
    const payload = message.payload as { readonly _tag?: string; readonly batch?: { readonly batchId: string } }
    if (payload._tag !== "JobQueued" || payload.batch === undefined) continue
    const feed = batchOwner.get(payload.batch.batchId)
    const began = world.spawnedAt.get(writer.pid)
    if (feed === undefined || began === undefined) continue
    const stopped = stoppedAt(world, feed, began)
    if (stopped !== null) problems.push(`${writer.label} began after ${feed.subscriptionId} was ${stopped} and queued ${message.subject}`)
  }
  return problems
}

/** What became of an entry is recorded once it is known: no entry stays in flight whose batch and job say it ended. */
export const outcomesRecorded = (world: World): ReadonlyArray<string> => {
  const states = world.jobStates()
  const problems: Array<string> = []
  for (const feed of world.subscriptions) {
    const state = stateOf(world, feed)
    if (state === null || state.removed) continue
    for (const entry of inFlightEntries(state)) {
      const batchId = entry.batchId ?? ""
      const job = states.get(jobSubject(feed.projectId, entryJobId(batchId, entry.entryId))) ?? null
      const sighting = sightingOf(batchOf(world, feed.projectId, batchId), entry.entryId, job, world.clock.now)
      if (sighting._tag !== "InFlight")
        problems.push(`${feed.subscriptionId}'s ${entry.archiveKey} is ${sighting._tag} but still in flight`)
    }
  }
  return problems
}

export const SUBSCRIPTION_SAFETY = { entriesDownloadedOnce, entriesAccountedFor, nothingQueuedWhenStopped }
export const SUBSCRIPTION_SETTLED = { outcomesRecorded }
