// Reads a running stack's NATS state from outside (streams, the job read model, admission) for fault-test verdicts.
import { isDeepStrictEqual } from "node:util"
import { jetstreamManager, type JetStreamManager } from "@nats-io/jetstream"
import { Kvm } from "@nats-io/kv"
import { connect, type NatsConnection } from "@nats-io/transport-node"
import { Option, Schema } from "effect"
import { liveSlots } from "@mds/shared/domain/admission/AdmissionDecider"
import { type ArchiveEntryRecorded, ArchiveEvent } from "@mds/shared/domain/archive/ArchiveEvent"
import { AdmissionEvent } from "@mds/shared/domain/admission/AdmissionEvent"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { endsJob, evolveJobView } from "@mds/shared/domain/job/JobState"
import { JobView } from "@mds/shared/domain/job/JobView"
import {
  ADMISSION_STREAM,
  admissionSubject,
  ARCHIVE_STREAM,
  archiveSubject,
  downloadWorkSubject,
  JOBS_STREAM,
  jobSubject,
  WORK_STREAM
} from "@mds/shared/nats/Subjects"
import { JOBS_BUCKET } from "@mds/shared/readmodel/kv/KvJobReadModel"

const decodeJobEvent = Schema.decodeUnknownSync(Schema.fromJsonString(JobEvent))
const decodeAdmission = Schema.decodeUnknownSync(Schema.fromJsonString(AdmissionEvent))
const decodeView = Schema.decodeUnknownSync(Schema.fromJsonString(JobView))
const decodeArchive = Schema.decodeUnknownSync(Schema.fromJsonString(ArchiveEvent))

export interface StoredJobEvent {
  readonly seq: number
  readonly event: JobEvent
}

export interface ReplayMismatch {
  readonly jobId: string
  readonly replayed: JobView | null
  readonly stored: JobView | null
}

export interface StackInspector {
  jobEvents(projectId: string, jobId: string): Promise<ReadonlyArray<StoredJobEvent>>
  /** The job ids of a project that have events in MDS_JOBS. */
  jobIds(projectId: string): Promise<ReadonlyArray<string>>
  /** Slots of the project that still count (held and not past their expiry). */
  heldSlots(projectId: string): Promise<ReadonlyArray<string>>
  /** The download commands waiting in the work queue (taken by no extractor yet), as JSON text. */
  queuedWork(): Promise<ReadonlyArray<string>>
  /** The project's download archive: each entry's first record (the claim that queued it). */
  archiveEntries(projectId: string): Promise<ReadonlyArray<ArchiveEntryRecorded>>
  /** Every job of the project whose read-model document differs from folding its stream. */
  replayMismatches(projectId: string): Promise<ReadonlyArray<ReplayMismatch>>
  close(): Promise<void>
}

const isTerminal = (event: JobEvent) => endsJob(event)

export const finishedEvent = (events: ReadonlyArray<StoredJobEvent>): JobEvent | undefined =>
  events.map((stored) => stored.event).find(isTerminal)

export const connectInspector = async (natsUrl: string): Promise<StackInspector> => {
  const nc: NatsConnection = await connect({
    servers: natsUrl.split(","),
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
    waitOnFirstConnect: true
  })
  const jsm: JetStreamManager = await jetstreamManager(nc)

  const readSubject = async (stream: string, subject: string) => {
    const found: Array<{ seq: number; data: string }> = []
    let next = 1
    while (true) {
      const msg = await jsm.direct.getMessage(stream, { seq: next, next_by_subj: subject })
      if (msg === null) return found
      found.push({ seq: msg.seq, data: msg.string() })
      next = msg.seq + 1
    }
  }

  const jobEvents = async (projectId: string, jobId: string) =>
    (await readSubject(JOBS_STREAM.name, jobSubject(projectId, jobId))).map(({ seq, data }) => ({ seq, event: decodeJobEvent(data) }))

  const jobIds = async (projectId: string) => {
    const info = await jsm.streams.info(JOBS_STREAM.name, { subjects_filter: jobSubject.within(projectId) })
    return Object.keys(info.state.subjects ?? {})
      .flatMap((subject) => Option.toArray(Option.map(jobSubject.parse(subject), (ids) => ids.jobId)))
      .sort()
  }

  const storedView = async (projectId: string, jobId: string) => {
    const kv = await new Kvm(nc).open(JOBS_BUCKET)
    const entry = await kv.get(`${projectId}.${jobId}`)
    return entry === null || entry.operation !== "PUT" ? null : decodeView(entry.string())
  }

  const archiveEntries = async (projectId: string) => {
    const info = await jsm.streams.info(ARCHIVE_STREAM.name, { subjects_filter: archiveSubject.within(projectId) })
    const entries: Array<ArchiveEntryRecorded> = []
    for (const subject of Object.keys(info.state.subjects ?? {}).sort()) {
      const first = (await readSubject(ARCHIVE_STREAM.name, subject))[0]
      if (first !== undefined) entries.push(decodeArchive(first.data))
    }
    return entries
  }

  return {
    jobEvents,
    jobIds,
    queuedWork: async () => (await readSubject(WORK_STREAM.name, downloadWorkSubject.all)).map(({ data }) => data),
    archiveEntries,
    heldSlots: async (projectId) => {
      const last = await jsm.direct.getMessage(ADMISSION_STREAM.name, { last_by_subj: admissionSubject(projectId) })
      if (last === null) return []
      return liveSlots({ held: decodeAdmission(last.string()).held }, Date.now()).map((slot) => slot.jobId)
    },
    replayMismatches: async (projectId) => {
      const mismatches: Array<ReplayMismatch> = []
      for (const jobId of await jobIds(projectId)) {
        const replayed = (await jobEvents(projectId, jobId)).reduce<JobView | null>((doc, s) => evolveJobView(doc, s.event, s.seq), null)
        const stored = await storedView(projectId, jobId)
        if (!isDeepStrictEqual(stored, replayed)) mismatches.push({ jobId, replayed, stored })
      }
      return mismatches
    },
    close: async () => {
      await nc.drain().catch(() => nc.close())
    }
  }
}
