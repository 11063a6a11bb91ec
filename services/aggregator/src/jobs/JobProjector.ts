// The one job projector, live and in rebuilds: each job's folded view held in memory, written with compare-and-set.
import { Effect, Option, Schema } from "effect"
import { LRUCache } from "lru-cache"
import type { JobView } from "@mds/shared/domain/job/JobView"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { JOBS_STREAM, jobSubject } from "@mds/shared/nats/Subjects"
import type { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import type { SubjectHistory } from "../projections/SubjectHistory.ts"
import { foldJobMessages, type JobMessage } from "./JobDocumentFold.ts"

/** One delivered message of the jobs stream. */
export interface DeliveredJobMessage extends JobMessage {
  readonly subject: string
  /**
   * The sequence of the subject's message before this one, when known: every job event is appended expecting the
   * subject's last sequence, and the stream keeps that expectation as a header. 0 for a subject's first event.
   */
  readonly previousSeq: number | undefined
}

export interface JobProjectorOptions {
  /** Jobs whose view is held in memory; the least recently projected beyond this are dropped (they are stored). */
  readonly documents: number
  /** Jobs projected at once within one batch. */
  readonly concurrency: number
  /**
   * Every message of each subject is delivered once and in order (an ordered consumer, as rebuilds use): the view
   * held for a job is then always the fold up to the message before, header or not. A durable consumer's
   * redeliveries can come late, so the live projector only trusts the header.
   */
  readonly ordered: boolean
}

export type JobProjectionOutcome = "written" | "unchanged"

/** A job's view as last stored (null: none), the last sequence folded into it and the store's revision (null: none). */
interface Held {
  readonly view: JobView | null
  readonly appliedSeq: number
  readonly revision: number | null
}

const NOTHING_STORED: Held = { view: null, appliedSeq: 0, revision: null }
export class JobViewContended extends Schema.TaggedError<JobViewContended>()("JobViewContended", {
  subject: Schema.String,
  conflicts: Schema.Number
}) {}

/** Compare-and-set conflicts in a row before the write fails (and the message is delivered again). */
const MAX_CONFLICTS = 8

/**
 * Folds delivered events onto the job's view held in memory, and writes it only if the stored document is still the
 * one the view was folded from (compare-and-set on the store's revision). Nothing is read while the view is held and
 * the delivered events follow on from it; the store is read on a miss (for a job's first event not even then: nothing
 * can be stored), the subject's history only when events are missing in between (a redelivery after later ones, a
 * poison message stepped over), and both again when another writer changed the document (a second aggregator, a
 * rebuild after its switch). A redelivered event at or below the held sequence changes nothing.
 */
export const makeJobProjector = (readModel: JobReadModel["Service"], history: SubjectHistory["Service"], options: JobProjectorOptions) => {
  const held = new LRUCache<string, Held>({ max: options.documents })

  const load = (projectId: string, jobId: string) =>
    Effect.map(readModel.getVersioned(projectId, jobId), (stored) =>
      Option.match(stored, {
        onNone: () => NOTHING_STORED,
        onSome: ({ revision, view }): Held => ({ view, appliedSeq: view.lastSeq, revision })
      })
    )

  /** The events to fold after `from`: the delivered ones when they follow on from it, else the subject's history. */
  const pendingAfter = (subject: string, from: Held, messages: ReadonlyArray<DeliveredJobMessage>, uptoSeq: number) => {
    const pending = messages.filter((message) => message.seq > from.appliedSeq)
    const followsOn = pending.every(
      (message, i) => options.ordered || message.previousSeq === (i === 0 ? from.appliedSeq : pending[i - 1]!.seq)
    )
    return followsOn
      ? Effect.succeed<ReadonlyArray<JobMessage>>(pending)
      : history.range(JOBS_STREAM.name, subject, from.appliedSeq, uptoSeq)
  }

  /** One subject's delivered messages, in stream order. */
  const projectSubject = Effect.fn("JobProjector.projectSubject")(function* (
    subject: string,
    messages: ReadonlyArray<DeliveredJobMessage>
  ) {
    const ids = jobSubject.parse(subject)
    const uptoSeq = messages.at(-1)?.seq
    if (Option.isNone(ids)) yield* stepOverSubject("job projection", subject)
    if (Option.isNone(ids) || uptoSeq === undefined) return "unchanged" as const
    const { jobId, projectId } = ids.value
    let known = held.get(subject) ?? (messages[0]!.previousSeq === 0 ? NOTHING_STORED : undefined)
    for (let conflicts = 0; ; conflicts++) {
      const from = known ?? (yield* load(projectId, jobId))
      if (from.appliedSeq >= uptoSeq) {
        held.set(subject, from)
        return "unchanged" as const
      }
      const folded = foldJobMessages(from.view, yield* pendingAfter(subject, from, messages, uptoSeq))
      if (folded === null || folded === from.view) {
        held.set(subject, { ...from, appliedSeq: uptoSeq })
        return "unchanged" as const
      }
      const write = yield* readModel.putAt(folded, from.revision)
      if (write._tag === "Written") {
        held.set(subject, { view: folded, appliedSeq: uptoSeq, revision: write.revision })
        return "written" as const
      }
      // Another writer changed the document: read it again and fold onto that.
      held.delete(subject)
      known = undefined
      if (conflicts + 1 >= MAX_CONFLICTS) return yield* Effect.fail(new JobViewContended({ subject, conflicts: MAX_CONFLICTS }))
    }
  })

  /** Delivered messages (in delivery order) projected job by job; done once every changed document is stored. */
  const project = (messages: ReadonlyArray<DeliveredJobMessage>) => {
    if (messages.length === 1) return Effect.asVoid(projectSubject(messages[0]!.subject, messages))
    const bySubject = new Map<string, Array<DeliveredJobMessage>>()
    for (const message of messages) {
      const subjectMessages = bySubject.get(message.subject)
      if (subjectMessages === undefined) bySubject.set(message.subject, [message])
      else subjectMessages.push(message)
    }
    return Effect.forEach(bySubject, ([subject, subjectMessages]) => projectSubject(subject, subjectMessages), {
      concurrency: options.concurrency,
      discard: true
    })
  }

  return { project, projectSubject }
}

export type JobProjector = ReturnType<typeof makeJobProjector>
