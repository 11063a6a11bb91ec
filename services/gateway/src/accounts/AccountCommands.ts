// The account commands both the admin CLI and the dashboard carry out: projects, members, keys and users, via the deciders.
import { keyCommands, projectCommands, userCommands } from "@mds/shared/domain/account/AccountCommands"
import {
  KeyEvent,
  type KeyEnvironment,
  type ProjectMember,
  ProjectEvent,
  type Scope,
  UserEvent
} from "@mds/shared/domain/account/AccountEvent"
import { KeyDecider } from "@mds/shared/domain/account/KeyDecider"
import { ProjectDecider } from "@mds/shared/domain/account/ProjectDecider"
import type { ProjectQuotas } from "@mds/shared/domain/account/ProjectQuotas"
import { UserDecider } from "@mds/shared/domain/account/UserDecider"
import { type Decider, foldEvents } from "@mds/shared/domain/Decider"
import { ProjectNotFound, UserNotFound } from "@mds/shared/domain/DomainErrors"
import { type EventCodec, EventStore } from "@mds/shared/eventstore/EventStore"
import { keySubject, projectSubject, userSubject } from "@mds/shared/eventstore/Subjects"
import { newId } from "@mds/shared/ids/Ids"
import { normalizeEmail, userIdFromEmail } from "@mds/shared/ids/UserId"
import { displayPrefix, generateSecret, hashSecret, keyIdFromHash } from "@mds/shared/keys/ApiKeySecret"
import { hashPassword } from "@mds/shared/keys/PasswordHash"
import { Clock, Config, Effect, Redacted } from "effect"

/** An aggregate's current state, folded from its subject's events (the source of truth, so a write is visible at once). */
const loadState = <Command, Event, State, Rejection>(
  decider: Decider<Command, Event, State, Rejection>,
  codec: EventCodec<Event>,
  subject: string
) =>
  Effect.gen(function* () {
    const events = yield* (yield* EventStore).readSubject(codec, subject)
    return foldEvents(
      decider,
      events.map((stored) => stored.event)
    )
  })

export const loadProject = Effect.fn("loadProject")(function* (projectId: string) {
  return yield* loadState(ProjectDecider, ProjectEvent, projectSubject(projectId))
})

export const loadUser = Effect.fn("loadUser")(function* (email: string) {
  return yield* loadState(UserDecider, UserEvent, userSubject(userIdFromEmail(email)))
})

export const loadKey = Effect.fn("loadKey")(function* (keyId: string) {
  return yield* loadState(KeyDecider, KeyEvent, keySubject(keyId))
})

export const createProject = Effect.fn("createProject")(function* (name: string, owner: ProjectMember | null) {
  const now = yield* Clock.currentTimeMillis
  const projectId = newId("prj")
  yield* projectCommands(projectId)({ _tag: "CreateProject", projectId, name, owner, now })
  return projectId
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
