// Sign-in, sign-out, and the signed-in user's project list with the form to create a project.
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import { Effect, Option } from "effect"
import { createOwnedProject } from "../../accounts/AccountCommands.ts"
import { DashboardConfig } from "../DashboardConfig.ts"
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
import { returnPathOf } from "../session/ReturnPath.ts"

export const showLogin = Effect.fn("showLogin")(function* (input: DashboardInput) {
  const auth = yield* DashboardAuth
  const next = returnPathOf(input.query?.["next"])
  if (Option.isSome(yield* auth.current(input.headers["cookie"]))) return redirectReply(next ?? "/dashboard")
  const login = auth.loginToken()
  return pageReply(loginPage({ csrfToken: login.token, email: "", error: null, next }), 200, [login.setCookie])
})

export const signIn = Effect.fn("signIn")(function* (input: DashboardInput) {
  const auth = yield* DashboardAuth
  if (!sameOrigin(input.headers) || !auth.loginTokenValid(input.headers["cookie"], field(input.body, "_csrf"))) {
    return yield* new CsrfRejected()
  }
  // Where the user was going when sign-in was asked for (a shared link, a deep link): only ever a dashboard page.
  const next = returnPathOf(field(input.body, "next"))
  const retry = (status: number, error: string, email: string) => {
    const login = auth.loginToken()
    return pageReply(loginPage({ csrfToken: login.token, email, error, next }), status, [login.setCookie])
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
  return redirectReply(next ?? "/dashboard", [signedIn.success.setCookie, auth.clearLoginCookie])
})

export const signOut = Effect.fn("signOut")(function* (input: DashboardInput) {
  const auth = yield* DashboardAuth
  const { current } = yield* requireSession(input)
  yield* auth.signOut(current.idHash)
  return redirectReply("/dashboard/login", [auth.clearSessionCookie])
})

const renderProjects = Effect.fn("renderProjects")(function* (signedIn: SignedIn, error: string | null, name: string, status = 400) {
  const projects = yield* (yield* ProjectReadModel).listByMember(signedIn.current.session.userId)
  return pageReply(projectsPage({ viewer: signedIn.viewer, projects, error, name }), error === null ? 200 : status)
})

export const listProjects = Effect.fn("listProjects")(function* (input: DashboardInput) {
  return yield* renderProjects(yield* requireSession(input), null, "")
})

export const addProject = Effect.fn("addProject")(function* (input: DashboardInput) {
  const signedIn = yield* requireSession(input)
  const form = yield* Effect.result(decodeProjectForm(input.body))
  if (form._tag === "Failure") return yield* renderProjects(signedIn, (form.failure as InvalidForm).message, field(input.body, "name"))
  const { session } = signedIn.current
  const { projectsPerUser } = yield* DashboardConfig
  const created = yield* Effect.result(
    createOwnedProject(form.success.name, { userId: session.userId, email: session.email }, projectsPerUser)
  )
  if (created._tag === "Failure" && created.failure._tag === "ProjectLimitReached") {
    const { limit } = created.failure
    const message = `You have created ${limit} project${limit === 1 ? "" : "s"}, as many as you may. Ask the operator to raise your limit (cli -- user project-limit).`
    return yield* renderProjects(signedIn, message, form.success.name, 422)
  }
  if (created._tag === "Failure") return yield* Effect.fail(created.failure)
  const projectId = created.success
  const projects = yield* ProjectReadModel
  yield* awaitProjection(Effect.map(projects.get(projectId), Option.isSome))
  return redirectReply(`/dashboard/projects/${projectId}/keys`)
})
