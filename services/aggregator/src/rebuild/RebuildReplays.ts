// What rebuilding each read model replays: its streams and filters, each message handled by the live aggregator's projection code.
import type { JsMsg } from "@nats-io/jetstream"
import { Effect, Layer, Option, Schema } from "effect"
import { KeyEvent, KeyUsed } from "@mds/shared/domain/account/AccountEvent"
import { MediaEvent } from "@mds/shared/domain/media/MediaEvent"
import { ACCOUNTS_STREAM, ALL_KEYS_SUBJECT, ALL_PROJECTS_SUBJECT, JOBS_STREAM, KEY_USAGE_STREAM, MEDIA_STREAM } from "@mds/shared/eventstore/Subjects"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { MediaReadModel } from "@mds/shared/readmodel/MediaReadModel"
import { ReadModelBackend, type ReadModelName } from "@mds/shared/readmodel/ReadModelBackend"
import { makeKeyCatchUp, makeKeyUseRecorder, makeProjectCatchUp } from "../AccountProjection.ts"
import { JobProjection } from "../JobProjection.ts"
import { MediaProjection } from "../MediaProjection.ts"
import { SubjectHistory } from "../SubjectHistory.ts"

/** One filtered stream to replay; a read model may need several (keys: their events and their usage). */
export interface ReplaySource {
  readonly stream: string
  readonly filter: string
  /** Projects one message exactly as the live aggregator does. */
  readonly handle: (msg: JsMsg) => Effect.Effect<unknown, unknown>
}

const decodeMediaEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(MediaEvent))
const decodeKeyEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(KeyEvent))
const decodeKeyUsed = Schema.decodeUnknownEffect(Schema.fromJsonString(KeyUsed))

/** An undecodable message is stepped over, as the live consumer terminates it. */
const whenDecoded = <A>(decode: (data: string) => Effect.Effect<A, unknown>, msg: JsMsg, project: (value: A) => Effect.Effect<unknown, unknown>) =>
  Effect.flatMap(Effect.option(decode(msg.string())), (value) => (Option.isSome(value) ? project(value.value) : Effect.void))

/** The same projections as the live aggregator, over the read model opened on the new store. */
export const replaySourcesFor = (name: ReadModelName, store: string) =>
  Effect.gen(function*() {
    const backend = yield* ReadModelBackend
    switch (name) {
      case "jobs": {
        const readModel = yield* backend.openJobs(store)
        const projection = yield* Effect.provide(
          Effect.gen(function*() {
            return yield* JobProjection
          }),
          // Fresh: a process that also runs the live aggregator must not get its memoized projection (and store) back.
          Layer.fresh(JobProjection.layer).pipe(Layer.provide(Layer.mergeAll(Layer.succeed(JobReadModel, readModel), SubjectHistory.layer)))
        )
        return [{ stream: JOBS_STREAM.name, filter: JOBS_STREAM.subjects[0]!, handle: (msg) => projection.catchUp(msg.subject, msg.seq) }] satisfies ReadonlyArray<ReplaySource>
      }
      case "media": {
        const readModel = yield* backend.openMedia(store)
        const projection = yield* Effect.provide(
          Effect.gen(function*() {
            return yield* MediaProjection
          }),
          Layer.fresh(MediaProjection.layer).pipe(Layer.provide(Layer.succeed(MediaReadModel, readModel)))
        )
        return [{
          stream: MEDIA_STREAM.name,
          filter: MEDIA_STREAM.subjects[0]!,
          handle: (msg) => whenDecoded(decodeMediaEvent, msg, projection.apply)
        }] satisfies ReadonlyArray<ReplaySource>
      }
      case "projects": {
        const catchUp = makeProjectCatchUp(yield* backend.openProjects(store), yield* Effect.provide(SubjectHistory, SubjectHistory.layer))
        return [{
          stream: ACCOUNTS_STREAM.name,
          filter: ALL_PROJECTS_SUBJECT,
          // mds.account.project.<projectId>; the fold reads the subject itself and steps over poison in it.
          handle: (msg) => catchUp(msg.subject.split(".")[3] ?? "", msg.subject, msg.seq)
        }] satisfies ReadonlyArray<ReplaySource>
      }
      case "keys": {
        const readModel = yield* backend.openKeys(store)
        const catchUp = makeKeyCatchUp(readModel, yield* Effect.provide(SubjectHistory, SubjectHistory.layer))
        const recordUse = makeKeyUseRecorder(readModel)
        return [
          {
            stream: ACCOUNTS_STREAM.name,
            filter: ALL_KEYS_SUBJECT,
            // A key's subject does not name its project: the event does.
            handle: (msg) => whenDecoded(decodeKeyEvent, msg, (event) => catchUp(event.projectId, msg.subject, msg.seq))
          },
          // The latest use of each key (the stream keeps one per key), raised into the same documents.
          { stream: KEY_USAGE_STREAM.name, filter: KEY_USAGE_STREAM.subjects[0]!, handle: (msg) => whenDecoded(decodeKeyUsed, msg, recordUse) }
        ] satisfies ReadonlyArray<ReplaySource>
      }
    }
  })
