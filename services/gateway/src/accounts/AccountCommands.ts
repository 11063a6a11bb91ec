// The account commands both the admin CLI and the dashboard carry out: projects, members, keys and users, via the deciders.
import {
  currentKey,
  currentProject,
  currentUser,
  keyCommands,
  projectCommands,
  userCommands
} from "@mds/shared/application/account/AccountCommands"
import type { KeyEnvironment, ProjectMember, QuotaSetting, Scope } from "@mds/shared/domain/account/AccountEvent"
import type { ProjectQuotas } from "@mds/shared/domain/account/ProjectQuotas"
import { ProjectNotFound, UserNotFound } from "@mds/shared/domain/DomainErrors"
import { newId } from "@mds/shared/ids/Ids"
import { normalizeEmail, userIdFromEmail } from "@mds/shared/ids/UserId"
import { displayPrefix, generateSecret, hashSecret, keyIdFromHash } from "@mds/shared/keys/ApiKeySecret"
import { hashPassword } from "@mds/shared/keys/PasswordHash"
import { Clock, Config, Effect, Redacted } from "effect"

/** The aggregates' current states, from their subjects' events (the source of truth, so a write is visible at once). */
export const loadProject = Effect.fn("loadProject")(function* (projectId: string) {
  return (yield* currentProject(projectId)).state
})

export const loadUser = Effect.fn("loadUser")(function* (email: string) {
  return (yield* currentUser(userIdFromEmail(email))).state
})

export const loadKey = Effect.fn("loadKey")(function* (keyId: string) {
  return (yield* currentKey(keyId)).state
})

/** The operator's project (admin CLI): no owner, no limit. */
export const createProject = Effect.fn("createProject")(function* (name: string, owner: ProjectMember | null) {
  const now = yield* Clock.currentTimeMillis
  const projectId = newId("prj")
  yield* projectCommands(projectId)({ _tag: "CreateProject", projectId, name, owner, now })
  return projectId
})

/**
 * A dashboard user's project: counted against their limit first (their own, else `defaultLimit`; null: none), so two
 * creations at once cannot both pass it; a project that then cannot be created gives its count back.
 */
export const createOwnedProject = Effect.fn("createOwnedProject")(function* (
  name: string,
  owner: ProjectMember,
  defaultLimit: number | null
) {
  const now = yield* Clock.currentTimeMillis
  const projectId = newId("prj")
  const users = userCommands(owner.userId)
  yield* users({ _tag: "ClaimProject", userId: owner.userId, email: owner.email, projectId, defaultLimit, now })
  yield* projectCommands(projectId)({ _tag: "CreateProject", projectId, name, owner, now }).pipe(
    Effect.tapError(() => Effect.ignore(users({ _tag: "ReleaseProject", userId: owner.userId, projectId, now })))
  )
  return projectId
})

/** Sets how many projects the user may create in the dashboard: a count, "unlimited" or "default". */
export const setUserProjectLimit = Effect.fn("setUserProjectLimit")(function* (email: string, limit: QuotaSetting) {
  const normalized = normalizeEmail(email)
  const now = yield* Clock.currentTimeMillis
  yield* userCommands(userIdFromEmail(normalized))({
    _tag: "SetProjectLimit",
    userId: userIdFromEmail(normalized),
    email: normalized,
    limit,
    now
  })
})

/** Sets the quotas given (the others stay as they were); the gateways apply it within seconds. */
export const setProjectQuota = Effect.fn("setProjectQuota")(function* (projectId: string, quotas: Partial<ProjectQuotas>) {
  const now = yield* Clock.currentTimeMillis
  yield* projectCommands(projectId)({ _tag: "SetProjectQuota", projectId, quotas, now })
})

export const renameProject = Effect.fn("renameProject")(function* (projectId: string, name: string) {
  const now = yield* Clock.currentTimeMillis
  yield* projectCommands(projectId)({ _tag: "RenameProject", projectId, name, now })
})

/** Adds an existing dashboard user (by email) to the project. */
export const addProjectMember = Effect.fn("addProjectMember")(function* (projectId: string, email: string) {
  const user = (yield* loadUser(email)).user
  if (user === null) return yield* new UserNotFound({ email: normalizeEmail(email) })
  const now = yield* Clock.currentTimeMillis
  yield* projectCommands(projectId)({ _tag: "AddProjectMember", projectId, member: { userId: user.userId, email: user.email }, now })
  return user
})

export interface IssuedKey {
  readonly keyId: string
  /** Shown once to whoever asked for it, never stored or logged. */
  readonly secret: string
}

export const createKey = Effect.fn("createKey")(function* (options: {
  readonly projectId: string
  readonly name: string
  readonly environment: KeyEnvironment
  readonly scopes: ReadonlyArray<Scope>
}) {
  if (!(yield* loadProject(options.projectId)).exists) return yield* new ProjectNotFound({ projectId: options.projectId })
  const now = yield* Clock.currentTimeMillis
  const pepper = yield* Config.Redacted("API_KEY_PEPPER")
  const secret = generateSecret(options.environment)
  const hash = hashSecret(Redacted.value(pepper), secret)
  const keyId = keyIdFromHash(hash)
  yield* keyCommands(keyId)({ _tag: "CreateKey", keyId, ...options, hash, prefix: displayPrefix(secret), now })
  return { keyId, secret } satisfies IssuedKey
})

/** `projectId` null: the operator, who may revoke any key; otherwise only a key of that project. */
export const revokeKey = Effect.fn("revokeKey")(function* (keyId: string, projectId: string | null) {
  const now = yield* Clock.currentTimeMillis
  yield* keyCommands(keyId)({ _tag: "RevokeKey", keyId, projectId, now })
})

/** Creates the user, or sets a new password for them: either way only the password's hash is recorded. */
const recordPassword = (command: "CreateUser" | "ChangePassword", email: string, password: string) =>
  Effect.gen(function* () {
    const normalized = normalizeEmail(email)
    const userId = userIdFromEmail(normalized)
    const passwordHash = yield* Effect.promise(() => hashPassword(password))
    const now = yield* Clock.currentTimeMillis
    yield* userCommands(userId)({ _tag: command, userId, email: normalized, passwordHash, now })
    return userId
  })

export const createUser = Effect.fn("createUser")(function* (email: string, password: string) {
  return yield* recordPassword("CreateUser", email, password)
})

export const changePassword = Effect.fn("changePassword")(function* (email: string, password: string) {
  yield* recordPassword("ChangePassword", email, password)
})
