// Events of projects (mds.account.project.<projectId>), API keys (mds.account.key.<keyId>), dashboard users
// (mds.account.user.<userId>) and key usage (mds.keyuse.<keyId>).
import { Schema } from "effect"

export const Scope = Schema.Literals(["media:resolve", "media:download"])
export type Scope = typeof Scope.Type
export const ALL_SCOPES: ReadonlyArray<Scope> = ["media:resolve", "media:download"]

export const KeyEnvironment = Schema.Literals(["live", "test"])
export type KeyEnvironment = typeof KeyEnvironment.Type

/** A dashboard user as a project names it: the id and, for display, the email. */
export const ProjectMember = Schema.Struct({
  userId: Schema.String,
  email: Schema.String
})
export type ProjectMember = typeof ProjectMember.Type

export const ProjectCreated = Schema.TaggedStruct("ProjectCreated", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  name: Schema.String,
  /** The dashboard user who created it, its first member; absent for projects made with the admin CLI. */
  owner: Schema.optionalKey(ProjectMember),
  at: Schema.Number
})
export type ProjectCreated = typeof ProjectCreated.Type

export const ProjectRenamed = Schema.TaggedStruct("ProjectRenamed", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  name: Schema.String,
  at: Schema.Number
})
export type ProjectRenamed = typeof ProjectRenamed.Type

export const ProjectMemberAdded = Schema.TaggedStruct("ProjectMemberAdded", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  userId: Schema.String,
  email: Schema.String,
  at: Schema.Number
})
export type ProjectMemberAdded = typeof ProjectMemberAdded.Type

/** A project quota as the operator set it: a limit, no limit, or the server's default (QUOTA_* settings). */
export const QuotaSetting = Schema.Union([Schema.Int.check(Schema.isGreaterThanOrEqualTo(0)), Schema.Literals(["unlimited", "default"])])
export type QuotaSetting = typeof QuotaSetting.Type

/** The operator set a project's quotas (admin CLI); a quota absent from the event is left as it was. */
export const ProjectQuotaSet = Schema.TaggedStruct("ProjectQuotaSet", {
  v: Schema.Literal(1),
  projectId: Schema.String,
  jobsPerDay: Schema.optionalKey(QuotaSetting),
  bytesPerMonth: Schema.optionalKey(QuotaSetting),
  /** Extension: the most live subscriptions the project may have. */
  subscriptions: Schema.optionalKey(QuotaSetting),
  at: Schema.Number
})
export type ProjectQuotaSet = typeof ProjectQuotaSet.Type

export const KeyCreated = Schema.TaggedStruct("KeyCreated", {
  v: Schema.Literal(1),
  keyId: Schema.String,
  projectId: Schema.String,
  name: Schema.String,
  environment: KeyEnvironment,
  scopes: Schema.Array(Scope),
  /** Keyed hash of the secret (hex); the secret itself is never stored. */
  hash: Schema.String,
  /** The first characters of the secret, for people to recognise a key in a list. */
  prefix: Schema.String,
  at: Schema.Number
})
export type KeyCreated = typeof KeyCreated.Type

export const KeyRevoked = Schema.TaggedStruct("KeyRevoked", {
  v: Schema.Literal(1),
  keyId: Schema.String,
  projectId: Schema.String,
  at: Schema.Number
})
export type KeyRevoked = typeof KeyRevoked.Type

/**
 * The key authenticated at least one request up to `at`. Gateways coalesce uses in memory and append at most one
 * of these per key and flush interval, on a subject of its own that keeps only the latest (see docs/events.md).
 */
export const KeyUsed = Schema.TaggedStruct("KeyUsed", {
  v: Schema.Literal(1),
  keyId: Schema.String,
  projectId: Schema.String,
  at: Schema.Number
})
export type KeyUsed = typeof KeyUsed.Type

export const UserCreated = Schema.TaggedStruct("UserCreated", {
  v: Schema.Literal(1),
  userId: Schema.String,
  email: Schema.String,
  /** scrypt hash string with its salt and parameters (shared/src/keys/PasswordHash.ts); never the password. */
  passwordHash: Schema.String,
  at: Schema.Number
})
export type UserCreated = typeof UserCreated.Type

export const UserPasswordChanged = Schema.TaggedStruct("UserPasswordChanged", {
  v: Schema.Literal(1),
  userId: Schema.String,
  passwordHash: Schema.String,
  at: Schema.Number
})
export type UserPasswordChanged = typeof UserPasswordChanged.Type

/**
 * The user is about to create a project in the dashboard: it counts against their limit from now on (recorded before
 * the project, so that two creations at once cannot both pass the limit). `UserProjectReleased` gives it back when
 * the project could not be created after all.
 */
export const UserProjectClaimed = Schema.TaggedStruct("UserProjectClaimed", {
  v: Schema.Literal(1),
  userId: Schema.String,
  projectId: Schema.String,
  at: Schema.Number
})
export type UserProjectClaimed = typeof UserProjectClaimed.Type

export const UserProjectReleased = Schema.TaggedStruct("UserProjectReleased", {
  v: Schema.Literal(1),
  userId: Schema.String,
  projectId: Schema.String,
  at: Schema.Number
})
export type UserProjectReleased = typeof UserProjectReleased.Type

/** The operator set how many projects the user may create in the dashboard (admin CLI): a count, unlimited, default. */
export const UserProjectLimitSet = Schema.TaggedStruct("UserProjectLimitSet", {
  v: Schema.Literal(1),
  userId: Schema.String,
  limit: QuotaSetting,
  at: Schema.Number
})
export type UserProjectLimitSet = typeof UserProjectLimitSet.Type

export const ProjectEvent = Schema.Union([ProjectCreated, ProjectRenamed, ProjectMemberAdded, ProjectQuotaSet])
export type ProjectEvent = typeof ProjectEvent.Type

export const KeyEvent = Schema.Union([KeyCreated, KeyRevoked])
export type KeyEvent = typeof KeyEvent.Type

export const UserEvent = Schema.Union([UserCreated, UserPasswordChanged, UserProjectClaimed, UserProjectReleased, UserProjectLimitSet])
export type UserEvent = typeof UserEvent.Type
