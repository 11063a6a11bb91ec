// Sign-in, sign-out, and the signed-in user's project list with the form to create a project.
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import { Effect, Option } from "effect"
import { createProject } from "../../accounts/AccountCommands.ts"
import { CsrfRejected, type InvalidForm } from "../DashboardErrors.ts"
import { decodeLoginForm, decodeProjectForm, field } from "../DashboardForms.ts"
import {
  awaitProjection,
  type DashboardInput,
  pageReply,
  redirectReply,
  requireSession,
  sameOrigin,
  type SignedIn
} from "../DashboardRoute.ts"
import { loginPage, projectsPage } from "../pages/AccessPages.ts"
import { DashboardAuth } from "../session/DashboardAuth.ts"

export const showLogin = Effect.fn("showLogin")(function* (input: DashboardInput) {
  const auth = yield* DashboardAuth
  if (Option.isSome(yield* auth.current(input.headers["cookie"]))) return redirectReply("/dashboard")
  const login = auth.loginToken()
  return pageReply(loginPage({ csrfToken: login.token, email: "", error: null }), 200, [login.setCookie])
})

export const signIn = Effect.fn("signIn")(function* (input: DashboardInput) {
  const auth = yield* DashboardAuth
  if (!sameOrigin(input.headers) || !auth.loginTokenValid(input.headers["cookie"], field(input.body, "_csrf"))) {
    return yield* new CsrfRejected()
  }
  const retry = (status: number, error: string, email: string) => {
    const login = auth.loginToken()
    return pageReply(loginPage({ csrfToken: login.token, email, error }), status, [login.setCookie])
  }
  const form = yield* Effect.result(decodeLoginForm(input.body))
  if (form._tag === "Failure") return retry(400, "Enter your email and password.", field(input.body, "email"))
  const signedIn = yield* Effect.result(auth.signIn(form.success.email, form.success.password, input.address))
  if (signedIn._tag === "Failure") {
    if ((signedIn.failure as { _tag?: string })._tag === "InvalidCredentials") {
      return retry(401, "The email or the password is wrong.", form.success.email)
    }
    return yield* Effect.fail(signedIn.failure)
  }
  return redirectReply("/dashboard", [signedIn.success.setCookie, auth.clearLoginCookie])
})

export const signOut = Effect.fn("signOut")(function* (input: DashboardInput) {
  const auth = yield* DashboardAuth
  const { current } = yield* requireSession(input)
  yield* auth.signOut(current.idHash)
  return redirectReply("/dashboard/login", [auth.clearSessionCookie])
})

const renderProjects = Effect.fn("renderProjects")(function* (signedIn: SignedIn, error: string | null, name: string) {
  const projects = yield* (yield* ProjectReadModel).listByMember(signedIn.current.session.userId)
  return pageReply(projectsPage({ viewer: signedIn.viewer, projects, error, name }), error === null ? 200 : 400)
})

export const listProjects = Effect.fn("listProjects")(function* (input: DashboardInput) {
  return yield* renderProjects(yield* requireSession(input), null, "")
})

export const addProject = Effect.fn("addProject")(function* (input: DashboardInput) {
  const signedIn = yield* requireSession(input)
  const form = yield* Effect.result(decodeProjectForm(input.body))
  if (form._tag === "Failure") return yield* renderProjects(signedIn, (form.failure as InvalidForm).message, field(input.body, "name"))
  const { session } = signedIn.current
  const projectId = yield* createProject(form.success.name, { userId: session.userId, email: session.email })
  const projects = yield* ProjectReadModel
  yield* awaitProjection(Effect.map(projects.get(projectId), Option.isSome))
  return redirectReply(`/dashboard/projects/${projectId}/keys`)
})
