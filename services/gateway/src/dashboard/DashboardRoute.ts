// A dashboard route as data (method, path, Effect), what it answers with, and the guards every signed-in page runs.
import type { Readable } from "node:stream"
import { isProjectMember } from "@mds/shared/domain/account/ProjectDecider"
import { ProjectNotFound } from "@mds/shared/domain/DomainErrors"
import { ProjectId } from "@mds/shared/ids/Ids"
import { Duration, Effect, Option, Schema } from "effect"
import { loadProject } from "../accounts/AccountCommands.ts"
import type { HeaderValue } from "../auth/PresentedKey.ts"
import { CsrfRejected, NotSignedIn } from "./DashboardErrors.ts"
import { field } from "./DashboardForms.ts"
import type { Html } from "./html/Html.ts"
import type { ProjectRef, Viewer } from "./html/Layout.ts"
import type { ProjectMember } from "@mds/shared/domain/account/AccountEvent"
import { type CurrentSession, DashboardAuth, tokensEqual } from "./session/DashboardAuth.ts"

export interface DashboardInput {
  readonly method: string
  readonly headers: Readonly<Record<string, HeaderValue>>
  readonly params: Readonly<Record<string, string | undefined>>
  /** The query string's parameters (filters and ranges of GET pages); absent: none. */
  readonly query?: Readonly<Record<string, unknown>>
  readonly body: unknown
  /** The client's address as the connection shows it (failed sign-ins are throttled per address). */
  readonly address?: string | undefined
}

export type DashboardReply =
  | {
      readonly _tag: "Page"
      readonly status: number
      readonly body: Html
      readonly cookies?: ReadonlyArray<string>
      readonly headers?: Readonly<Record<string, string>>
    }
  | { readonly _tag: "Redirect"; readonly location: string; readonly cookies?: ReadonlyArray<string> }
  /** A body that stays open (server-sent events), with its own headers. */
  | { readonly _tag: "Stream"; readonly body: Readable; readonly headers: Readonly<Record<string, string>> }

export const pageReply = (body: Html, status = 200, cookies?: ReadonlyArray<string>): DashboardReply =>
  cookies === undefined ? { _tag: "Page", status, body } : { _tag: "Page", status, body, cookies }

/** 303: the browser follows with a GET, so reloading the next page never repeats the form's POST. */
export const redirectReply = (location: string, cookies?: ReadonlyArray<string>): DashboardReply =>
  cookies === undefined ? { _tag: "Redirect", location } : { _tag: "Redirect", location, cookies }

export interface DashboardRoute<R> {
  readonly method: "GET" | "POST"
  readonly path: string
  /** Script endpoints (JSON, event streams) answer 401 instead of redirecting to the sign-in page. */
  readonly json?: boolean
  readonly run: (input: DashboardInput) => Effect.Effect<DashboardReply, unknown, R>
}

export const route = <R>(
  method: DashboardRoute<R>["method"],
  path: string,
  run: DashboardRoute<R>["run"],
  options: { readonly json?: boolean } = {}
): DashboardRoute<R> => ({ method, path, run, ...options })

const single = (value: HeaderValue) => (typeof value === "string" ? value : undefined)

/** A browser always sends Origin on a cross-site POST; when present it must name this very host. */
export const sameOrigin = (headers: DashboardInput["headers"]): boolean => {
  const origin = single(headers["origin"])
  if (origin === undefined) return true
  const host = single(headers["host"])
  return URL.canParse(origin) && host !== undefined && new URL(origin).host === host
}

export interface SignedIn {
  readonly current: CurrentSession
  readonly viewer: Viewer
}

/** The request's session; for a POST also the CSRF token of that session and a same-origin request. */
export const requireSession = Effect.fn("requireSession")(function* (input: DashboardInput) {
  const auth = yield* DashboardAuth
  const found = yield* auth.current(input.headers["cookie"])
  if (Option.isNone(found)) return yield* new NotSignedIn()
  const current = found.value
  if (input.method === "POST") {
    if (!sameOrigin(input.headers) || !tokensEqual(field(input.body, "_csrf"), current.session.csrfToken)) {
      return yield* new CsrfRejected()
    }
  }
  return { current, viewer: { email: current.session.email, csrfToken: current.session.csrfToken } } satisfies SignedIn
})

const isProjectId = Schema.is(ProjectId)

export interface MemberProject extends ProjectRef {
  readonly members: ReadonlyArray<ProjectMember>
}

/** The project named in the path, read from its own events, if the user is a member; otherwise "not found". */
export const requireMembership = Effect.fn("requireMembership")(function* (input: DashboardInput, signedIn: SignedIn) {
  const projectId = input.params["projectId"] ?? ""
  if (!isProjectId(projectId)) return yield* new ProjectNotFound({ projectId: "(malformed)" })
  const state = yield* loadProject(projectId)
  if (!isProjectMember(state, signedIn.current.session.userId)) return yield* new ProjectNotFound({ projectId })
  return { projectId, name: state.name ?? projectId, members: state.members } satisfies MemberProject
})

/** A signed-in user on a page of one of their projects. */
export interface Member {
  readonly signedIn: SignedIn
  readonly project: MemberProject
}

/** A project page's first step: the session, and the project in the path if the signed-in user is a member of it. */
export const requireMember = (input: DashboardInput) =>
  Effect.gen(function* () {
    const signedIn = yield* requireSession(input)
    const project = yield* requireMembership(input, signedIn)
    return { signedIn, project } satisfies Member
  })

/**
 * Read-your-writes for lists served from read models: after a write, wait until the aggregator has projected it
 * (milliseconds, as a rule), so the next page shows it. At most 5 s: an aggregator that far behind (busy, or
 * restarting) shows it a moment later, and the page is drawn without it rather than kept waiting.
 */
export const awaitProjection = <E, R>(projected: Effect.Effect<boolean, E, R>) =>
  Effect.gen(function* () {
    for (let i = 0; i < 200; i++) {
      if (yield* projected) return true
      yield* Effect.sleep(Duration.millis(25))
    }
    return false
  })
