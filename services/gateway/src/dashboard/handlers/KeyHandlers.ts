// API keys of a project: list, create (secret shown once), revoke with confirmation, guided rotation.
import { ALL_SCOPES } from "@mds/shared/domain/account/AccountEvent"
import type { KeyView } from "@mds/shared/domain/account/AccountViews"
import { ApiKeyNotFound } from "@mds/shared/domain/DomainErrors"
import { KeyId } from "@mds/shared/ids/Ids"
import { KeyReadModel } from "@mds/shared/readmodel/KeyReadModel"
import { Effect, Option, Schema } from "effect"
import { createKey, loadKey, revokeKey } from "../../accounts/AccountCommands.ts"
import type { InvalidForm } from "../DashboardErrors.ts"
import { decodeKeyForm, field, fields } from "../DashboardForms.ts"
import {
  awaitProjection,
  type DashboardInput,
  type Member,
  type MemberProject,
  pageReply,
  redirectReply,
  requireMember
} from "../DashboardRoute.ts"
import { type KeyForm, keyCreatedPage, keysPage, revokePage, rotatePage } from "../pages/KeyPages.ts"

const isKeyId = Schema.is(KeyId)
const DEFAULT_FORM: KeyForm = { name: "", environment: "live", scopes: ALL_SCOPES }

const renderKeys = Effect.fn("renderKeys")(function* (
  { signedIn, project }: Member,
  options: { readonly form: KeyForm; readonly error: string | null; readonly notice: string | null }
) {
  const keys = yield* (yield* KeyReadModel).listByProject(project.projectId)
  return pageReply(keysPage({ viewer: signedIn.viewer, project, keys, ...options }), options.error === null ? 200 : 400)
})

/** The key named in the path, from its own events (so a key made a moment ago is found), if it is this project's. */
const requireKey = Effect.fn("requireKey")(function* (input: DashboardInput, project: MemberProject) {
  const keyId = input.params["keyId"] ?? ""
  if (!isKeyId(keyId)) return yield* new ApiKeyNotFound({ keyId: "(malformed)" })
  const state = yield* loadKey(keyId)
  const key = state.key
  if (key === null || key.projectId !== project.projectId) return yield* new ApiKeyNotFound({ keyId })
  const projected = yield* (yield* KeyReadModel).get(project.projectId, keyId)
  return {
    keyId,
    projectId: key.projectId,
    name: key.name,
    environment: key.environment,
    scopes: key.scopes,
    prefix: key.prefix,
    createdAt: key.at,
    revokedAt: state.revokedAt,
    lastSeq: 0,
    lastUsedAt: Option.isSome(projected) ? projected.value.lastUsedAt : null
  } satisfies KeyView
})

const untilListed = (projectId: string, keyId: string, revoked: boolean) =>
  Effect.gen(function* () {
    const keys = yield* KeyReadModel
    return yield* awaitProjection(
      Effect.map(keys.get(projectId, keyId), (found) => Option.isSome(found) && (found.value.revokedAt !== null) === revoked)
    )
  })

export const listKeys = Effect.fn("listKeys")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  return yield* renderKeys(member, { form: DEFAULT_FORM, error: null, notice: null })
})

export const addKey = Effect.fn("addKey")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project, signedIn } = member
  const form = yield* Effect.result(decodeKeyForm(input.body))
  if (form._tag === "Failure") {
    const environment = field(input.body, "environment") === "test" ? "test" : "live"
    const typed: KeyForm = { name: field(input.body, "name"), environment, scopes: fields(input.body, "scopes") }
    return yield* renderKeys(member, { form: typed, error: (form.failure as InvalidForm).message, notice: null })
  }
  const issued = yield* createKey({ projectId: project.projectId, ...form.success })
  yield* untilListed(project.projectId, issued.keyId, false)
  return pageReply(keyCreatedPage({ viewer: signedIn.viewer, project, name: form.success.name, secret: issued.secret, replaces: null }))
})

/** The page that asks to confirm an action on a live key; a revoked key sends the browser back to the key list. */
const confirmKeyAction = (name: string, confirmPage: typeof revokePage | typeof rotatePage) =>
  Effect.fn(name)(function* (input: DashboardInput) {
    const { project, signedIn } = yield* requireMember(input)
    const key = yield* requireKey(input, project)
    if (key.revokedAt !== null) return redirectReply(`/dashboard/projects/${project.projectId}/keys`)
    return pageReply(confirmPage({ viewer: signedIn.viewer, project, key }))
  })

export const confirmRevoke = confirmKeyAction("confirmRevoke", revokePage)

export const revoke = Effect.fn("revoke")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project, signedIn } = member
  const key = yield* requireKey(input, project)
  // Without the confirmation field (a hand-made request), ask first.
  if (field(input.body, "confirm") !== "yes") return pageReply(revokePage({ viewer: signedIn.viewer, project, key }))
  yield* revokeKey(key.keyId, project.projectId)
  yield* untilListed(project.projectId, key.keyId, true)
  return yield* renderKeys(member, {
    form: DEFAULT_FORM,
    error: null,
    notice: `The key “${key.name}” (${key.prefix}…) is revoked: requests with it are now refused.`
  })
})

export const confirmRotate = confirmKeyAction("confirmRotate", rotatePage)

/** Step 1 of a rotation: a twin of the key (same name, environment, scopes), shown once, then the offer to revoke the old one. */
export const rotate = Effect.fn("rotate")(function* (input: DashboardInput) {
  const { project, signedIn } = yield* requireMember(input)
  const key = yield* requireKey(input, project)
  if (key.revokedAt !== null) return redirectReply(`/dashboard/projects/${project.projectId}/keys`)
  const issued = yield* createKey({ projectId: project.projectId, name: key.name, environment: key.environment, scopes: key.scopes })
  yield* untilListed(project.projectId, issued.keyId, false)
  return pageReply(keyCreatedPage({ viewer: signedIn.viewer, project, name: key.name, secret: issued.secret, replaces: key }))
})
