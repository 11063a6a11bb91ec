// The lifecycle's invariants, each written once: safety ones hold after every step of the model, settled ones once
// everything has settled (every write made, every message run, every reactor reconciled). Each returns what breaks it.
import { Schema } from "effect"
import { AdmissionDecider, liveSlots, slotTry } from "@mds/shared/domain/admission/AdmissionDecider"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { usageAt, utcDay, utcMonth } from "@mds/shared/domain/admission/Quota"
import { BatchEvent } from "@mds/shared/domain/batch/BatchEvent"
import { evolveBatch, initialBatchState, isBatchDone, progressOf } from "@mds/shared/domain/batch/BatchState"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { evolveJob, hasEnded, type JobState, jobStatus, retriesOf } from "@mds/shared/domain/job/JobState"
import { admissionSubject } from "@mds/shared/nats/Subjects"
import { PROJECTS, SLOTS, type World } from "./World.ts"
import { SUBSCRIPTION_SAFETY, SUBSCRIPTION_SETTLED } from "./SubscriptionInvariants.ts"
import { DELIVERY_SAFETY, DELIVERY_SETTLED } from "./DeliveryInvariants.ts"
import { RETENTION_SAFETY } from "./RetentionInvariants.ts"

const decodeJob = Schema.decodeUnknownSync(JobEvent)
const decodeAdmission = Schema.decodeUnknownSync(AdmissionEvent)
const decodeBatch = Schema.decodeUnknownSync(BatchEvent)

export const admissionOf = (world: World, projectId: string) => {
  const subject = admissionSubject(projectId)
  const last = world.store.messages().findLast((m) => m.subject === subject)
  return last === undefined
    ? AdmissionDecider.initialState()
    : AdmissionDecider.evolve(AdmissionDecider.initialState(), decodeAdmission(last.payload))
}

/** The project id a subject names (mds.<kind>.<projectId>...), for the kinds a project owns. */
const projectOfSubject = (subject: string): string | null => {
  const [, kind, second] = subject.split(".")
  return kind === "job" || kind === "admission" || kind === "batch" || kind === "subscription" || kind === "archive"
    ? (second ?? null)
    : null
}

/** Per project, the jobs holding a slot never outnumber its slots. */
export const slotsWithinLimit = (world: World): ReadonlyArray<string> =>
  PROJECTS.flatMap((projectId) => {
    const held = liveSlots(admissionOf(world, projectId), world.clock.now)
    return held.length > SLOTS
      ? [`${projectId} holds ${held.length} slots (${held.map((s) => s.jobId).join(", ")}), more than ${SLOTS}`]
      : []
  })

/** Per project, runs in flight (started, not ended, still heartbeating) never outnumber its slots. */
export const runsWithinLimit = (world: World): ReadonlyArray<string> =>
  PROJECTS.flatMap((projectId) => {
    const running = world.liveRuns().filter((run) => run.work.projectId === projectId && run.attempt !== null && !run.stalled)
    return running.length > SLOTS
      ? [
          `${projectId} has ${running.length} runs in flight (${running.map((r) => `${r.work.jobId}#${r.id}`).join(", ")}), more than ${SLOTS}`
        ]
      : []
  })

/**
 * Every job that is queued or processing within its lifetime holds one of its project's slots, once the process that
 * queued (or retried) it has finished its step: until then it may be confirming or claiming its slot again.
 */
export const waitingJobsHoldSlots = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const recordedBy = new Map<string, number>()
  for (const { message, writer } of world.written) {
    const tag = (message.payload as { _tag?: string })._tag
    if (tag === "JobQueued" || tag === "JobRetried" || tag === "JobLiveBegan") recordedBy.set(message.subject, writer.pid)
  }
  for (const [subject, state] of world.jobStates()) {
    // A scheduled job holds no slot (scheduledJobsHoldNoSlot): it waits for its stream.
    if (state === null || hasEnded(state) || state.status === "scheduled" || world.clock.now >= state.expiresAt) continue
    const recorder = recordedBy.get(subject)
    if (recorder !== undefined && world.processes.isBusy(recorder)) continue
    const held = liveSlots(admissionOf(world, state.projectId), world.clock.now)
    if (!held.some((slot) => slot.jobId === state.id)) problems.push(`${subject} is ${jobStatus(state)} without a slot`)
  }
  return problems
}

/**
 * Extension: a scheduled job no probe has found live holds no slot for its current try (and has no work message for
 * it): it takes a slot only once its stream began, as a new download does. A queued download whose run found its
 * stream not begun waits on a try of its own; the slot and message of the try that ran are an ended try's, which its
 * worker (or the reconcile) frees as it frees any ended try's (settled: slotsMatchLiveJobs).
 */
export const scheduledJobsHoldNoSlot = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const workFor = new Set(
    world.store
      .messages()
      .flatMap((m) =>
        m.stream === "MDS_WORK" ? [`${(m.payload as { jobId: string }).jobId}:${(m.payload as { retry?: number }).retry ?? 0}`] : []
      )
  )
  for (const [subject, state] of world.jobStates()) {
    if (state === null || state.status !== "scheduled" || state.schedule?.liveAt !== undefined) continue
    const current = retriesOf(state)
    const held = liveSlots(admissionOf(world, state.projectId), world.clock.now)
    if (held.some((slot) => slot.jobId === state.id && slotTry(slot) === current)) {
      problems.push(`${subject} is scheduled, its stream not begun, and holds a slot for its try ${current}`)
    }
    if (workFor.has(`${state.id}:${current}`))
      problems.push(`${subject} is scheduled, its stream not begun, and has a work message for its try ${current}`)
  }
  return problems
}

/**
 * Extension: a scheduled job is never lost: it leaves `scheduled` only by beginning (JobLiveBegan, then queued and
 * processing as any job), failing live_not_started (or quota_exceeded once it began), being canceled or expiring; and it gives up only once its wait ran
 * out or its probes failed five times in a row.
 */
export const scheduledJobsEndOnlyAsAllowed = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const states = new Map<string, JobState>()
  for (const message of world.store.messages()) {
    if (message.stream !== "MDS_JOBS") continue
    const event = decodeJob(message.payload)
    const before = states.get(message.subject) ?? null
    const after = evolveJob(before, event)
    if (before !== null && before.status === "scheduled" && after !== null && after.status !== "scheduled") {
      const allowed =
        event._tag === "JobLiveBegan" ||
        event._tag === "JobCanceled" ||
        event._tag === "JobExpired" ||
        // The stream began with the project's quota used up: refused as a new download would be.
        (event._tag === "JobFailed" && event.error.code === "quota_exceeded" && before.schedule?.liveAt !== undefined) ||
        (event._tag === "JobFailed" &&
          event.error.code === "live_not_started" &&
          before.schedule !== undefined &&
          (event.at >= before.schedule.waitUntil || before.schedule.failedProbes >= 4))
      if (!allowed) problems.push(`${message.subject} left scheduled by ${event._tag} (${JSON.stringify(event)})`)
    }
    states.set(message.subject, after)
  }
  return problems
}

/** A job has at most one run at a time (a stalled run that lost its message does not count: it cannot write). */
export const oneRunPerJob = (world: World): ReadonlyArray<string> => {
  const byJob = new Map<string, Array<number>>()
  for (const run of world.liveRuns()) {
    if (run.attempt === null || run.stalled) continue
    byJob.set(run.work.jobId, [...(byJob.get(run.work.jobId) ?? []), run.id])
  }
  return [...byJob]
    .filter(([, runs]) => runs.length > 1)
    .map(([jobId, runs]) => `${jobId} has ${runs.length} runs at once (${runs.join(", ")})`)
}

/**
 * Every job event a run writes belongs to the job's current try, and past its start to the run's own attempt: a run
 * of an earlier try, or one another run superseded, changes nothing.
 */
export const runsWriteTheirOwnTry = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  const states = new Map<string, JobState>()
  const writtenBy = new Map(world.written.map((w) => [w.message, w.run] as const))
  for (const message of world.store.messages()) {
    if (message.stream !== "MDS_JOBS") continue
    const event = decodeJob(message.payload)
    const before = states.get(message.subject) ?? null
    const run = writtenBy.get(message) ?? null
    if (run !== null && before !== null && event._tag !== "JobExpired") {
      const runTry = run.work.retry ?? 0
      if (retriesOf(before) !== runTry)
        problems.push(`run ${run.id} of try ${runTry} wrote ${event._tag} on ${message.subject}, now on try ${retriesOf(before)}`)
      else if (event._tag !== "JobStarted" && run.attempt !== null && before.attempt !== run.attempt)
        problems.push(`run ${run.id} of attempt ${run.attempt} wrote ${event._tag} on ${message.subject}, now on attempt ${before.attempt}`)
    }
    states.set(message.subject, evolveJob(before, event))
  }
  return problems
}

/** No process of one project writes on another project's subjects or hands off another project's work. */
export const projectsKeepToThemselves = (world: World): ReadonlyArray<string> =>
  world.written.flatMap(({ message, writer }) => {
    if (writer.projectId === "") return []
    const owner =
      projectOfSubject(message.subject) ??
      (message.stream === "MDS_WORK" ? ((message.payload as { projectId?: string }).projectId ?? null) : null)
    return owner !== null && owner !== writer.projectId
      ? [`${writer.label} of ${writer.projectId} wrote ${message.subject} of ${owner}`]
      : []
  })

/** A reader's state (read model document plus the events after it) is the state the job's events fold into. */
export const readersSeeTheFold = (world: World): ReadonlyArray<string> => {
  const folded = world.jobStates()
  const problems: Array<string> = []
  for (const [subject, state] of world.readerStates()) {
    const expected = folded.get(subject) ?? null
    if (JSON.stringify(state) !== JSON.stringify(expected))
      problems.push(`a reader of ${subject} sees ${JSON.stringify(state)}, the events say ${JSON.stringify(expected)}`)
  }
  return problems
}

/**
 * Extension: a recording is its run's own. A job's recording belongs to the attempt the job is on (a later run never
 * goes on recording it: its start fails the job recording_interrupted), unless the recording kept parts: then the later
 * run only joins them, so the job is processing (joining) or ended, and completed only partial worker_lost.
 */
export const recordingsBelongToTheirRun = (world: World): ReadonlyArray<string> => {
  const problems: Array<string> = []
  for (const [subject, state] of world.jobStates()) {
    const recording = state?.recording
    if (state === null || recording === undefined || recording.attempt === state.attempt) continue
    if ((recording.kept?.chunks ?? 0) === 0) {
      problems.push(`${subject} is on attempt ${state.attempt} but holds the recording of attempt ${recording.attempt}`)
    } else if (jobStatus(state) === "completed" && state.partial !== "worker_lost") {
      problems.push(`${subject} completed from a lost recording's parts without saying it is partial`)
    }
  }
  return problems
}

/**
 * Extension: once settled, a job whose recording's worker was lost after keeping parts ended completed partial
 * (worker_lost), never failed recording_interrupted (nor stuck: noJobLeftWaiting); a client's cancel, its lifetime's
 * end or its runs all dying (attempts_exhausted) may still end it otherwise.
 */
export const lostRecordingsCompletePartial = (world: World): ReadonlyArray<string> =>
  [...world.jobStates()].flatMap(([subject, state]) => {
    const recording = state?.recording
    if (state === null || recording === undefined || (recording.kept?.chunks ?? 0) === 0) return []
    if (state.error?.code === "recording_interrupted") return [`${subject} kept parts of its recording but failed recording_interrupted`]
    if (recording.attempt === state.attempt) return []
    const status = jobStatus(state)
    const ok =
      (status === "completed" && state.partial === "worker_lost") ||
      status === "canceled" ||
      status === "expired" ||
      (status === "failed" && state.error?.code === "attempts_exhausted") ||
      world.clock.now >= state.expiresAt
    return ok ? [] : [`${subject} lost its recording's worker after keeping parts and is ${status} (${state.error?.code ?? "-"})`]
  })

/**
 * When no process is in the middle of a step, a slot is held only by a job that is queued or processing, by a run
 * still in flight (its work message delivered and not acknowledged: a worker that died is replaced), or by a claim
 * whose job never came (a process died between the two writes: freed when the project needs the slot, after a grace).
 */
export const slotsHeldByLiveWork = (world: World): ReadonlyArray<string> => {
  const states = world.jobStates()
  const inFlight = new Set(
    world.queue
      .unacknowledged()
      .filter((m) => m.deliveries > 0)
      .map((m) => (m.payload as { jobId: string }).jobId)
  )
  return PROJECTS.flatMap((projectId) =>
    liveSlots(admissionOf(world, projectId), world.clock.now).flatMap((slot) => {
      const state = states.get(`mds.job.${projectId}.${slot.jobId}`) ?? null
      if (state === null || !hasEnded(state) || inFlight.has(slot.jobId)) return []
      return [`${projectId}'s slot of ${slot.jobId} is held though the job is ${jobStatus(state)} and nothing runs it`]
    })
  )
}

/** Checked whenever no process is in the middle of a step, until a fault happened (then once settled). */
export const QUIET = { slotsHeldByLiveWork }

/**
 * Checked after every step until a fault happened, and once settled: after a crash between two writes a queued job
 * may wait for its slot (claimed again by its hand-off) while the project's slots are held.
 */
export const UNDISTURBED = { waitingJobsHoldSlots }

/** Checked after every step, faults or not. */
export const SAFETY = {
  ...SUBSCRIPTION_SAFETY,
  ...DELIVERY_SAFETY,
  ...RETENTION_SAFETY,
  slotsWithinLimit,
  runsWithinLimit,
  oneRunPerJob,
  runsWriteTheirOwnTry,
  projectsKeepToThemselves,
  readersSeeTheFold,
  recordingsBelongToTheirRun,
  scheduledJobsHoldNoSlot,
  scheduledJobsEndOnlyAsAllowed
}

/**
 * Once settled, a slot is held exactly by the jobs that are queued or processing: none is left to an ended job (a
 * claim whose job never came is freed when the project needs the slot, and is not one).
 */
export const slotsFollowJobs = (world: World): ReadonlyArray<string> => {
  const states = world.jobStates()
  return PROJECTS.flatMap((projectId) =>
    liveSlots(admissionOf(world, projectId), world.clock.now).flatMap((slot) => {
      const state = states.get(`mds.job.${projectId}.${slot.jobId}`) ?? null
      return state !== null && hasEnded(state) ? [`${projectId}'s slot of ${slot.jobId} is held though the job is ${jobStatus(state)}`] : []
    })
  )
}

/**
 * Once settled, the month's bytes are the files of the month's completed jobs, and the day's jobs its admissions (a
 * claim given back unused the day it was made is no admission).
 */
export const quotaCountsMatch = (world: World): ReadonlyArray<string> => {
  const states = [...world.jobStates().values()]
  const today = utcDay(world.clock.now)
  const month = utcMonth(world.clock.now)
  return PROJECTS.flatMap((projectId) => {
    const usage = usageAt(admissionOf(world, projectId).usage, world.clock.now)
    const bytes = states.reduce(
      (sum, s) =>
        sum +
        (s !== null && s.projectId === projectId && jobStatus(s) === "completed" && utcMonth(s.completedAt ?? 0) === month
          ? (s.artifact?.sizeBytes ?? 0)
          : 0),
      0
    )
    const claimedAt = new Map<string, number>()
    let admitted = 0
    for (const message of world.store.messages()) {
      if (message.subject !== admissionSubject(projectId)) continue
      const event = decodeAdmission(message.payload)
      const key = `${event.jobId}:${event.retry ?? 0}`
      if (event._tag === "SlotClaimed") {
        claimedAt.set(key, event.at)
        if (utcDay(event.at) === today) admitted++
      } else if (
        event._tag === "SlotReleased" &&
        event.reason === "unused" &&
        utcDay(claimedAt.get(key) ?? 0) === today &&
        utcDay(event.at) === today
      )
        admitted--
    }
    return [
      ...(usage.bytes === bytes ? [] : [`${projectId} counted ${usage.bytes} bytes this month, its completed jobs hold ${bytes}`]),
      ...(usage.jobs === admitted ? [] : [`${projectId} counted ${usage.jobs} jobs today, it admitted ${admitted}`])
    ]
  })
}

const batchStates = (world: World) =>
  world.batches.map(({ projectId, batchId }) => {
    const subject = `mds.batch.${projectId}.${batchId}`
    const batch = world.store
      .messages()
      .filter((m) => m.subject === subject)
      .reduce((state, m) => evolveBatch(state, decodeBatch(m.payload)), initialBatchState())
    return { projectId, batchId, batch }
  })

/** Once settled, each batch entry that reads finished has its job's outcome. */
export const entriesFollowJobs = (world: World): ReadonlyArray<string> => {
  const states = world.jobStates()
  return batchStates(world).flatMap(({ projectId, batchId, batch }) => {
    const problems: Array<string> = []
    for (const entry of batch.entries) {
      const progress = progressOf(batch, entry.entryId)
      if (progress._tag !== "Finished") continue
      const job = states.get(`mds.job.${projectId}.${progress.jobId}`) ?? null
      const outcome = jobStatus(job) === "completed" ? "completed" : "failed"
      if (progress.outcome !== outcome)
        problems.push(`${batchId}'s entry ${entry.entryId} reads ${progress.outcome}, its job is ${jobStatus(job)}`)
    }
    return problems
  })
}

/** Once settled, no job waits: each ended (or expired) — a queued job nobody will run is a lost hand-off. */
export const noJobLeftWaiting = (world: World): ReadonlyArray<string> =>
  [...world.jobStates()].flatMap(([subject, state]) =>
    state !== null && !hasEnded(state) && world.clock.now < state.expiresAt
      ? [`${subject} is still ${jobStatus(state)} with nothing left to run it`]
      : []
  )

export const SETTLED = {
  ...SUBSCRIPTION_SETTLED,
  ...DELIVERY_SETTLED,
  slotsFollowJobs,
  quotaCountsMatch,
  entriesFollowJobs,
  noJobLeftWaiting,
  waitingJobsHoldSlots,
  lostRecordingsCompletePartial
}

/**
 * Once a whole lifetime has passed and everything settled again, every batch whose end passed is done (its unfed
 * entries expired). A batch made in that last settle (a subscription's check that came due meanwhile, its entries
 * held by the day's quota) is young yet: its end is a lifetime away.
 */
export const batchesEnd = (world: World): ReadonlyArray<string> =>
  batchStates(world).flatMap(({ batchId, batch }) =>
    isBatchDone(batch) || world.clock.now < batch.expiresAt ? [] : [`${batchId} is not done a lifetime later`]
  )

export const A_LIFETIME_LATER = { ...SUBSCRIPTION_SETTLED, batchesEnd }

export const violations = (world: World, invariants: Record<string, (world: World) => ReadonlyArray<string>>): ReadonlyArray<string> =>
  Object.entries(invariants).flatMap(([name, check]) => check(world).map((problem) => `${name}: ${problem}`))
