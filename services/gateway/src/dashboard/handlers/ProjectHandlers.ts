// A project's jobs (page and the JSON its script polls) and settings (rename, members).
import { isJobVisible } from "@mds/shared/domain/job/JobView"
import { JobReadModel } from "@mds/shared/readmodel/JobReadModel"
import { ProjectReadModel } from "@mds/shared/readmodel/ProjectReadModel"
import { Clock, Effect, Option } from "effect"
import { addProjectMember, renameProject } from "../../accounts/AccountCommands.ts"
import type { InvalidForm } from "../DashboardErrors.ts"
import { decodeMemberForm, decodeProjectForm } from "../DashboardForms.ts"
import {
  awaitProjection,
  type DashboardInput,
  type DashboardReply,
  type Member,
  pageReply,
  redirectReply,
  requireMember
} from "../DashboardRoute.ts"
import { jobsPage, settingsPage, toJobRow } from "../pages/ProjectPages.ts"

/** How many recent jobs the page lists. */
const RECENT_JOBS = 50

const recentRows = Effect.fn("recentRows")(function* (projectId: string) {
  const now = yield* Clock.currentTimeMillis
  const jobs = yield* (yield* JobReadModel).listByProject(projectId, RECENT_JOBS)
  return jobs.filter((job) => isJobVisible(job, now)).map(toJobRow)
})

export const showProject = Effect.fn("showProject")(function* (input: DashboardInput) {
  const { project } = yield* requireMember(input)
  return redirectReply(`/dashboard/projects/${project.projectId}/keys`)
})

export const listJobs = Effect.fn("listJobs")(function* (input: DashboardInput) {
  const { project, signedIn } = yield* requireMember(input)
  return pageReply(jobsPage({ viewer: signedIn.viewer, project, rows: yield* recentRows(project.projectId) }))
})

export const jobsJson = Effect.fn("jobsJson")(function* (input: DashboardInput) {
  const { project } = yield* requireMember(input)
  return { _tag: "Json", data: { jobs: yield* recentRows(project.projectId) } } satisfies DashboardReply
})

const renderSettings = ({ signedIn, project }: Member, error: string | null, notice: string | null) =>
  pageReply(settingsPage({ viewer: signedIn.viewer, project, error, notice }), error === null ? 200 : 400)

export const showSettings = Effect.fn("showSettings")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  return renderSettings(member, null, null)
})

export const rename = Effect.fn("rename")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project } = member
  const form = yield* Effect.result(decodeProjectForm(input.body))
  if (form._tag === "Failure") return renderSettings(member, (form.failure as InvalidForm).message, null)
  yield* renameProject(project.projectId, form.success.name)
  const projects = yield* ProjectReadModel
  yield* awaitProjection(Effect.map(projects.get(project.projectId), (v) => Option.isSome(v) && v.value.name === form.success.name))
  return renderSettings({ ...member, project: { ...project, name: form.success.name } }, null, "The project is renamed.")
})

export const addMember = Effect.fn("addMember")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project } = member
  const form = yield* Effect.result(decodeMemberForm(input.body))
  if (form._tag === "Failure") return renderSettings(member, (form.failure as InvalidForm).message, null)
  const added = yield* Effect.result(addProjectMember(project.projectId, form.success.email))
  if (added._tag === "Failure") {
    if ((added.failure as { _tag?: string })._tag === "UserNotFound") {
      return renderSettings(member, "No dashboard user has this email; the operator creates users.", null)
    }
    return yield* Effect.fail(added.failure)
  }
  const user = added.success
  const members = project.members.some((m) => m.userId === user.userId)
    ? project.members
    : [...project.members, { userId: user.userId, email: user.email }]
  return renderSettings({ ...member, project: { ...project, members } }, null, `${user.email} is a member now.`)
})
