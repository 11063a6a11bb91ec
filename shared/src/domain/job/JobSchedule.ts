// Extension: a scheduled job's wait for its stream: the document's schedule, the probe interval, and the live-wait
// reactor's pure reaction (probe, take a slot, give up, or wait until the next probe is due).
import { Schema } from "effect"
import type { React, Wake } from "../Reaction.ts"
import type { JobError, JobEvent } from "./JobEvent.ts"

/** A scheduled job's wait, as its document keeps it (kept after the stream began: it tells when it was announced). */
export const JobSchedule = Schema.Struct({
  startsAt: Schema.Number,
  waitUntil: Schema.Number,
  nextProbeAt: Schema.Number,
  failedProbes: Schema.Number,
  /** When a probe found the stream live; the job then waits only for a slot. */
  liveAt: Schema.optionalKey(Schema.Number),
  /** The job was queued and its run of this attempt found the stream not begun (JobAwaitingStart); absent otherwise. */
  afterAttempt: Schema.optionalKey(Schema.Number)
})
export type JobSchedule = typeof JobSchedule.Type

/** LIVE_WAIT_MAX_SECONDS, LIVE_PROBE_MIN_SECONDS, LIVE_PROBE_MAX_SECONDS, as milliseconds. */
export interface LiveWaitSettings {
  readonly waitMaxMs: number
  readonly probeMinMs: number
  readonly probeMaxMs: number
}

/** Failed probes in a row after which the job gives up (`live_not_started`). */
export const MAX_FAILED_PROBES = 5

/**
 * The wait before the next probe: the time left until the announced start, at least `probeMinMs` (60 s) and at most
 * `probeMaxMs` (1 h): a stream hours away is looked at hourly, one past its start every minute.
 */
export const probeDelay = (startsAt: number, now: number, settings: LiveWaitSettings): number =>
  Math.min(settings.probeMaxMs, Math.max(settings.probeMinMs, startsAt - now))

export const LIVE_NOT_STARTED_ERROR: JobError = {
  code: "live_not_started",
  message: "The scheduled stream did not begin in time (or could not be read several times in a row).",
  retryable: false
}

/** What woke the live-wait reactor: a schedule event of the job, or the reconcile. */
export type LiveWaitTrigger = Wake<"JobScheduleRecorded" | "Reconcile">

export type LiveWaitReaction =
  /** Resolve the media again and record what it says (JobLiveProbed, or the give-up). */
  | { readonly _tag: "Probe" }
  /** The stream is live: take a slot as a new download does, record JobLiveBegan, hand the job to a worker. */
  | { readonly _tag: "Begin" }
  /** The wait ran out: fail the job with live_not_started. */
  | { readonly _tag: "GiveUp" }
  /** Nothing is due before `at`. */
  | { readonly _tag: "WaitUntil"; readonly at: number }

/** Only a scheduled job has something to wait for; whatever became of it otherwise (canceled, expired) ends the wait. */
/** What the reaction reads of a job's state (its document: JobState, which this file's schema is part of). */
type ScheduledState = { readonly status: string; readonly schedule?: JobSchedule | undefined } | null

export const liveWaitReaction: React<ScheduledState, LiveWaitTrigger, LiveWaitReaction> = (state, { now }) => {
  if (state === null || state.status !== "scheduled" || state.schedule === undefined) return []
  const schedule = state.schedule
  if (schedule.liveAt !== undefined) return [{ _tag: "Begin" }]
  if (now >= schedule.waitUntil) return [{ _tag: "GiveUp" }]
  if (now >= schedule.nextProbeAt) return [{ _tag: "Probe" }]
  return [{ _tag: "WaitUntil", at: Math.min(schedule.nextProbeAt, schedule.waitUntil) }]
}

/** The events that plan a scheduled job's next wake-up (the due time is in the event: nextProbeAt, waitUntil). */
export const plansWakeUp = (event: JobEvent): boolean =>
  event._tag === "JobScheduled" || event._tag === "JobLiveProbed" || event._tag === "JobAwaitingStart"
