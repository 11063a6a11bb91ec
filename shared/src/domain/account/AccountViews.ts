// Read-model documents of projects and keys, and their projections: evolve(doc | null, event, seq), replayable.
import { Schema } from "effect"
import { KeyEnvironment, type KeyEvent, type ProjectEvent, ProjectMember, QuotaSetting, Scope } from "./AccountEvent.ts"
import { DEFAULT_QUOTAS, withQuotaSet } from "./ProjectQuotas.ts"

export const ProjectView = Schema.Struct({
  projectId: Schema.String,
  name: Schema.String,
  createdAt: Schema.Number,
  members: Schema.Array(ProjectMember),
  /** The operator's quota settings; absent: the server's defaults for both. */
  quotas: Schema.optionalKey(
    Schema.Struct({ jobsPerDay: QuotaSetting, bytesPerMonth: QuotaSetting, subscriptions: Schema.optionalKey(QuotaSetting) })
  ),
  /** Stream sequence of the last event folded in; a redelivered event at or below it changes nothing. */
  lastSeq: Schema.Number
})
export type ProjectView = typeof ProjectView.Type

/** What the key events say about a key; the last-used time comes from KeyUsed and is stored beside it. */
export const KeyRecord = Schema.Struct({
  keyId: Schema.String,
  projectId: Schema.String,
  name: Schema.String,
  environment: KeyEnvironment,
  scopes: Schema.Array(Scope),
  /** The first characters of the secret, e.g. svc_live_Ab3x: never more. */
  prefix: Schema.String,
  createdAt: Schema.Number,
  revokedAt: Schema.NullOr(Schema.Number),
  lastSeq: Schema.Number
})
export type KeyRecord = typeof KeyRecord.Type

export interface KeyView extends KeyRecord {
  readonly lastUsedAt: number | null
}

export const evolveProjectView = (doc: ProjectView | null, event: ProjectEvent, seq: number): ProjectView | null => {
  if (doc !== null && seq <= doc.lastSeq) return doc
  switch (event._tag) {
    case "ProjectCreated":
      if (doc !== null) return doc
      return {
        projectId: event.projectId,
        name: event.name,
        createdAt: event.at,
        members: event.owner === undefined ? [] : [event.owner],
        lastSeq: seq
      }
    case "ProjectRenamed":
      return doc === null ? null : { ...doc, name: event.name, lastSeq: seq }
    case "ProjectMemberAdded":
      if (doc === null) return null
      return {
        ...doc,
        members: doc.members.some((m) => m.userId === event.userId)
          ? doc.members
          : [...doc.members, { userId: event.userId, email: event.email }],
        lastSeq: seq
      }
    case "ProjectQuotaSet":
      if (doc === null) return null
      return { ...doc, quotas: withQuotaSet({ ...DEFAULT_QUOTAS, ...doc.quotas }, event), lastSeq: seq }
  }
}

export const evolveKeyRecord = (doc: KeyRecord | null, event: KeyEvent, seq: number): KeyRecord | null => {
  if (doc !== null && seq <= doc.lastSeq) return doc
  switch (event._tag) {
    case "KeyCreated":
      if (doc !== null) return doc
      return {
        keyId: event.keyId,
        projectId: event.projectId,
        name: event.name,
        environment: event.environment,
        scopes: event.scopes,
        prefix: event.prefix,
        createdAt: event.at,
        revokedAt: null,
        lastSeq: seq
      }
    case "KeyRevoked":
      return doc === null ? null : { ...doc, revokedAt: doc.revokedAt ?? event.at, lastSeq: seq }
  }
}
