// What rebuilding each read model replays: its streams and filters, and how messages are projected (the live aggregator's code or its fold).
import type { JsMsg } from "@nats-io/jetstream"
import { Effect, Layer, Option, Schema } from "effect"
import { KeyEvent, KeyUsed } from "@mds/shared/domain/account/AccountEvent"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { JobEvent } from "@mds/shared/domain/job/JobEvent"
import { JobStates } from "@mds/shared/application/job/JobStates"
import { JetStreamEventStore } from "@mds/shared/eventstore/JetStreamEventStore"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import {
  ACCOUNTS_STREAM,
  JOBS_STREAM,
  jobSubject,
  KEY_USAGE_STREAM,
  keySubject,
  keyUsageSubject,
  MEDIA_STREAM,
  mediaSubject,
  projectSubject,
  SUBSCRIPTIONS_STREAM,
  subscriptionSubject
} from "@mds/shared/nats/Subjects"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { ReadModelBackend, type ReadModelName } from "@mds/shared/readmodel/ReadModelBackend"
import { makeKeyCatchUp, makeKeyUseRecorder, makeProjectCatchUp } from "../accounts/AccountProjection.ts"
import { MediaProjection } from "../media/MediaProjection.ts"
import { SubjectHistory } from "../projections/SubjectHistory.ts"
import { makeJobProjector } from "../jobs/JobProjector.ts"
import { previousSubjectSeq } from "../projections/Projection.ts"
import { makeUsageProjector } from "../usage/UsageProjection.ts"
import { makeSubscriptionCatchUp } from "../subscriptions/SubscriptionProjection.ts"

/** One filtered stream to replay; a read model may need several (keys: their events and their usage). */
export interface ReplaySource {
  readonly stream: string
  readonly filter: string
  readonly projection: /** Projects one message exactly as the live aggregator does; messages of different subjects run at once. */
    | { readonly _tag: "PerMessage"; readonly handle: (msg: JsMsg) => Effect.Effect<unknown, unknown> }
    /** Projects delivered messages in delivery order, a batch at a time; done once every one of them is stored. */
    | { readonly _tag: "Batched"; readonly handle: (msgs: ReadonlyArray<JsMsg>) => Effect.Effect<void, unknown> }
}

/** How the read models rebuilt in batches (jobs) hold and write their documents. */
export interface ReplayBatchLimits {
  /** Documents kept in memory between batches; the least recently used beyond this are dropped (they are stored). */
  readonly documents: number
  /** Reads and writes of the read model in flight at once. */
  readonly concurrency: number
  /** Messages folded before their documents are written (fewer when the stream's tip comes first). */
  readonly messages: number
}

export const defaultReplayBatchLimits: ReplayBatchLimits = { messages: 1_000, documents: 20_000, concurrency: 32 }

const perMessage = (handle: (msg: JsMsg) => Effect.Effect<unknown, unknown>) => ({ _tag: "PerMessage", handle }) as const

const decodeMediaEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(MediaEvent))
const decodeJobEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(JobEvent))
const decodeKeyEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(KeyEvent))
const decodeKeyUsed = Schema.decodeUnknownEffect(Schema.fromJsonString(KeyUsed))

/** An undecodable message is stepped over, as the live consumer terminates it. */
const whenDecoded = <A>(
  decode: (data: string) => Effect.Effect<A, unknown>,
  msg: JsMsg,
  project: (value: A) => Effect.Effect<unknown, unknown>
) => Effect.flatMap(Effect.option(decode(msg.string())), (value) => (Option.isSome(value) ? project(value.value) : Effect.void))

/** The live aggregator's projections (for jobs its projector, batched), over the read model opened on the new store. */
export const replaySourcesFor = (name: ReadModelName, store: string, limits: ReplayBatchLimits) =>
  Effect.gen(function* () {
    const backend = yield* ReadModelBackend
    switch (name) {
      case "jobs": {
        // The live job projector with a batch's messages at a time: each job's events of a batch folded and written once.
        const projector = makeJobProjector(yield* backend.openJobs(store), yield* Effect.provide(SubjectHistory, SubjectHistory.layer), {
          documents: limits.documents,
          concurrency: limits.concurrency,
          // The replay's ordered consumer delivers every message of every job once, in order.
          ordered: true
        })
        const handle = (msgs: ReadonlyArray<JsMsg>) =>
          projector
            .project(
              msgs.map((msg) => ({
                subject: msg.subject,
                seq: msg.seq,
                data: msg.string(),
                previousSeq: previousSubjectSeq(msg.headers, msg.seq)
              }))
            )
            .pipe(
              // A job already stored is left as it is on the next try.
              Effect.retry({ times: 5 })
            )
        return [
          { stream: JOBS_STREAM.name, filter: jobSubject.all, projection: { _tag: "Batched", handle } }
        ] satisfies ReadonlyArray<ReplaySource>
      }
      case "media": {
        const readModel = yield* backend.openMedia(store)
        const projection = yield* Effect.provide(
          Effect.gen(function* () {
            return yield* MediaProjection
          }),
          Layer.fresh(MediaProjection.layer).pipe(Layer.provide(Layer.succeed(MediaReadModel, readModel)))
        )
        return [
          {
            stream: MEDIA_STREAM.name,
            filter: mediaSubject.all,
            projection: perMessage((msg) => whenDecoded(decodeMediaEvent, msg, projection.apply))
          }
        ] satisfies ReadonlyArray<ReplaySource>
      }
      case "projects": {
        const catchUp = makeProjectCatchUp(yield* backend.openProjects(store), yield* Effect.provide(SubjectHistory, SubjectHistory.layer))
        return [
          {
            stream: ACCOUNTS_STREAM.name,
            filter: projectSubject.all,
            // The fold reads the subject itself and steps over poison in it.
            projection: perMessage((msg) =>
              Option.match(projectSubject.parse(msg.subject), {
                onNone: () => stepOverSubject("projects rebuild", msg.subject),
                onSome: ({ projectId }) => catchUp(projectId, msg.subject, msg.seq)
              })
            )
          }
        ] satisfies ReadonlyArray<ReplaySource>
      }
      case "usage": {
        // The live projector over the new store; the jobs' states come from the job read model in use and the stream.
        const jobs = yield* backend.openJobs(yield* backend.stores.current("jobs", backend.defaults.jobs))
        const jobStates = yield* Effect.provide(
          JobStates,
          JobStates.layer.pipe(Layer.provide(Layer.mergeAll(Layer.succeed(JobReadModel, jobs), JetStreamEventStore)))
        )
        const apply = makeUsageProjector(yield* backend.openUsage(store), jobStates)
        return [
          {
            stream: JOBS_STREAM.name,
            filter: jobSubject.all,
            projection: perMessage((msg) => whenDecoded(decodeJobEvent, msg, (event) => apply(event, msg.subject)))
          }
        ] satisfies ReadonlyArray<ReplaySource>
      }
      case "subscriptions": {
        const catchUp = makeSubscriptionCatchUp(
          yield* backend.openSubscriptions(store),
          yield* Effect.provide(SubjectHistory, SubjectHistory.layer)
        )
        return [
          {
            stream: SUBSCRIPTIONS_STREAM.name,
            filter: subscriptionSubject.all,
            // The subject names project and subscription; the fold reads the subject itself and steps over poison in it.
            projection: perMessage((msg) => catchUp(msg.subject, msg.seq))
          }
        ] satisfies ReadonlyArray<ReplaySource>
      }
      case "keys": {
        const readModel = yield* backend.openKeys(store)
        const catchUp = makeKeyCatchUp(readModel, yield* Effect.provide(SubjectHistory, SubjectHistory.layer))
        const recordUse = makeKeyUseRecorder(readModel)
        return [
          {
            stream: ACCOUNTS_STREAM.name,
            filter: keySubject.all,
            // A key's subject does not name its project: the event does.
            projection: perMessage((msg) => whenDecoded(decodeKeyEvent, msg, (event) => catchUp(event.projectId, msg.subject, msg.seq)))
          },
          // The latest use of each key (the stream keeps one per key), raised into the same documents.
          {
            stream: KEY_USAGE_STREAM.name,
            filter: keyUsageSubject.all,
            projection: perMessage((msg) => whenDecoded(decodeKeyUsed, msg, recordUse))
          }
        ] satisfies ReadonlyArray<ReplaySource>
      }
    }
  })
