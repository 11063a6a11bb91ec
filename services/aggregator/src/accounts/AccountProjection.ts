// Folds project and key subjects into the project and key read models, and key usage into last-used times.
import { Context, Effect, Layer, Option, Schema } from "effect"
import { KeyEvent, KeyUsed, ProjectEvent } from "@mds/shared/domain/account/AccountEvent"
import { evolveKeyRecord, evolveProjectView, type KeyRecord, type ProjectView } from "@mds/shared/domain/account/AccountViews"
import { stepOverSubject } from "@mds/shared/nats/SubjectKind"
import { ACCOUNTS_STREAM, KEY_USAGE_STREAM, keySubject, keyUsageSubject, projectSubject, userSubject } from "@mds/shared/nats/Subjects"
import { KeyReadModel } from "@mds/shared/readmodel/KeyReadModel"
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import type { ReadModelError } from "@mds/shared/readmodel/ReadModelError"
import { projection } from "../projections/Projection.ts"
import { catchUpSubject } from "../projections/SubjectCatchUp.ts"
import { SubjectHistory } from "../projections/SubjectHistory.ts"

const decodeProjectEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(ProjectEvent))
const decodeKeyEvent = Schema.decodeUnknownEffect(Schema.fromJsonString(KeyEvent))

export type AccountProjectionOutcome = "written" | "unchanged"

/** Folds a project subject's events after the stored document's lastSeq, up to `uptoSeq`, into the project read model. */
export const makeProjectCatchUp = (projects: ProjectReadModel["Service"], history: SubjectHistory["Service"]) =>
  Effect.fn("AccountProjection.project")(function* (projectId: string, subject: string, uptoSeq: number) {
    const stored = Option.getOrNull(yield* projects.get(projectId))
    return yield* catchUpSubject<ProjectView, ProjectEvent, ReadModelError, never>({
      history,
      stream: ACCOUNTS_STREAM.name,
      subject,
      uptoSeq,
      stored,
      decode: decodeProjectEvent,
      evolve: evolveProjectView,
      put: projects.put
    })
  })

/** The same for a key subject (whose project comes from its events); the last-used time is not touched. */
export const makeKeyCatchUp = (keys: KeyReadModel["Service"], history: SubjectHistory["Service"]) =>
  Effect.fn("AccountProjection.key")(function* (projectId: string, subject: string, uptoSeq: number) {
    const ids = keySubject.parse(subject)
    if (Option.isNone(ids)) return yield* Effect.as(stepOverSubject("key projection", subject), "unchanged" as const)
    const view = Option.getOrNull(yield* keys.get(projectId, ids.value.keyId))
    // The last-used time is kept beside the record by the read model; the key events never touch it.
    let stored: KeyRecord | null = null
    if (view !== null) {
      const { lastUsedAt: _lastUsedAt, ...record } = view
      stored = record
    }
    return yield* catchUpSubject<KeyRecord, KeyEvent, ReadModelError, never>({
      history,
      stream: ACCOUNTS_STREAM.name,
      subject,
      uptoSeq,
      stored,
      decode: decodeKeyEvent,
      evolve: evolveKeyRecord,
      put: keys.put
    })
  })

/** Raises the key's last-used time; usage may arrive before the key's own events. */
export const makeKeyUseRecorder = (keys: KeyReadModel["Service"]) => (event: KeyUsed) =>
  keys.recordUse(event.projectId, event.keyId, event.at)

/**
 * Like the job projection, it does not trust delivery order: for a delivered message it folds every event of the
 * subject between the document's lastSeq and the message, read from the stream. Users are not projected: sign-in
 * reads a user's own subject, and nothing lists users.
 */
export class AccountProjection extends Context.Service<
  AccountProjection,
  {
    /** The kind and id come from the subject (a project's, a key's or a user's); a key's project from its decoded event. */
    catchUp(subject: string, uptoSeq: number, data: string): Effect.Effect<AccountProjectionOutcome, unknown>
    recordUse(event: KeyUsed): Effect.Effect<void, unknown>
  }
>()("mds/aggregator/AccountProjection") {
  static readonly layer = Layer.effect(
    AccountProjection,
    Effect.gen(function* () {
      const projects = yield* ProjectReadModel
      const keys = yield* KeyReadModel
      const history = yield* SubjectHistory

      const catchUpProject = makeProjectCatchUp(projects, history)
      const catchUpKey = makeKeyCatchUp(keys, history)

      const catchUp = Effect.fn("AccountProjection.catchUp")(function* (subject: string, uptoSeq: number, data: string) {
        const project = projectSubject.parse(subject)
        if (Option.isSome(project)) return yield* catchUpProject(project.value.projectId, subject, uptoSeq)
        if (Option.isSome(keySubject.parse(subject))) {
          const event = yield* decodeKeyEvent(data)
          return yield* catchUpKey(event.projectId, subject, uptoSeq)
        }
        // Users are not projected (below); anything else on the stream is stepped over.
        if (Option.isNone(userSubject.parse(subject))) yield* stepOverSubject("account projection", subject)
        return "unchanged" as const
      })

      return AccountProjection.of({
        catchUp,
        recordUse: makeKeyUseRecorder(keys)
      })
    })
  )
}

/** mds.account.> into the project and key read models; any JSON object decodes (the kind comes from the subject). */
export const accountsProjection = projection({
  stream: ACCOUNTS_STREAM.name,
  durable: "aggregator-accounts",
  filter: ACCOUNTS_STREAM.all,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(Schema.Record(Schema.String, Schema.Unknown))),
  project: (_event, message) =>
    Effect.flatMap(AccountProjection, (accounts) => accounts.catchUp(message.subject, message.seq, message.data))
})

/** mds.keyuse.> into the keys' last-used times. */
export const keyUsageProjection = projection({
  stream: KEY_USAGE_STREAM.name,
  durable: "aggregator-key-usage",
  filter: keyUsageSubject.all,
  decode: Schema.decodeUnknownEffect(Schema.fromJsonString(KeyUsed)),
  project: (event: KeyUsed) => Effect.flatMap(AccountProjection, (accounts) => accounts.recordUse(event))
})
