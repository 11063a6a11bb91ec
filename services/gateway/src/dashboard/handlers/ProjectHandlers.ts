// A project's jobs (the page, and the live stream its script follows) and settings (rename, members).
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
import { type JobFilter, jobFilterOf, matchesJobFilter } from "../jobs/JobFilter.ts"
import { jobRowOf } from "../jobs/JobRows.ts"
import { jobsPage } from "../pages/JobsPage.ts"
import { settingsPage } from "../pages/ProjectPages.ts"
import { quotaStandingsOf } from "@mds/shared/application/admission/QuotaCheck"
import { openEventStream } from "../../http/EventStream.ts"
import { followProjectJobChanges, jobStreamTip } from "../../jobs/ProjectJobChanges.ts"

/** How many recent jobs the page lists, and how many it looks through when filtering. */
const RECENT_JOBS = 50
const FILTERED_FROM = 500

/**
 * The live stream ends after this long; the browser reconnects at once, and the reconnect checks the session and the
 * membership again (a user signed out or removed from the project stops getting updates) and sends the list afresh.
 */
const LIVE_STREAM_MS = 5 * 60_000

/** The recent visible jobs passing the filter, and the platforms and error codes seen among them (the filter's choices). */
const recentJobs = Effect.fn("recentJobs")(function* (projectId: string, filter: JobFilter) {
  const now = yield* Clock.currentTimeMillis
  const visible = (yield* (yield* JobReadModel).listByProject(projectId, FILTERED_FROM)).filter((job) => isJobVisible(job, now))
  const jobs = visible.filter((job) => matchesJobFilter(filter, job)).slice(0, RECENT_JOBS)
  const choices = {
    platforms: [...new Set(visible.map((job) => job.platform))].sort(),
    errors: [...new Set(visible.flatMap((job) => (job.error === null ? [] : [job.error.code])))].sort()
  }
  return { jobs, choices }
})

export const showProject = Effect.fn("showProject")(function* (input: DashboardInput) {
  const { project } = yield* requireMember(input)
  return redirectReply(`/dashboard/projects/${project.projectId}/keys`)
})

export const listJobs = Effect.fn("listJobs")(function* (input: DashboardInput) {
  const { project, signedIn } = yield* requireMember(input)
  const filter = jobFilterOf(input.query)
  const { jobs, choices } = yield* recentJobs(project.projectId, filter)
  const rows = yield* Effect.forEach(jobs, jobRowOf)
  return pageReply(jobsPage({ viewer: signedIn.viewer, project, rows, filter, choices, limit: RECENT_JOBS }))
})

/**
 * The Jobs tab's live list as server-sent events: `jobs` (the list as the page shows it, read after the stream's start
 * position; its jobs that have not ended are read afresh first, since the read model may lag their events), then `job`
 * (a row that changed or joined the filter) and `gone` (a job that left it).
 */
export const jobEvents = Effect.fn("jobEvents")(function* (input: DashboardInput) {
  const { project } = yield* requireMember(input)
  const filter = jobFilterOf(input.query)
  const afterSeq = yield* jobStreamTip
  const { jobs } = yield* recentJobs(project.projectId, filter)
  const stream = yield* openEventStream(
    "dashboard job stream",
    project.projectId,
    (send) =>
      Effect.gen(function* () {
        yield* send("jobs", { jobs: yield* Effect.forEach(jobs, jobRowOf) })
        const changes = yield* followProjectJobChanges(project.projectId, {
          afterSeq,
          matches: (view) => matchesJobFilter(filter, view),
          shown: jobs
        })
        while (true) {
          const { view, matches } = yield* changes.next
          yield* matches ? send("job", yield* jobRowOf(view)) : send("gone", { id: view.id })
        }
      }).pipe(Effect.scoped),
    { endAfterMs: LIVE_STREAM_MS }
  )
  return { _tag: "Stream", body: stream.body, headers: stream.headers } satisfies DashboardReply
})

const renderSettings = ({ signedIn, project }: Member, error: string | null, notice: string | null) =>
  Effect.map(quotaStandingsOf(project.projectId), ({ standings }) =>
    pageReply(settingsPage({ viewer: signedIn.viewer, project, quotas: standings, error, notice }), error === null ? 200 : 400)
  )

export const showSettings = Effect.fn("showSettings")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  return yield* renderSettings(member, null, null)
})

export const rename = Effect.fn("rename")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project } = member
  const form = yield* Effect.result(decodeProjectForm(input.body))
  if (form._tag === "Failure") return yield* renderSettings(member, (form.failure as InvalidForm).message, null)
  yield* renameProject(project.projectId, form.success.name)
  const projects = yield* ProjectReadModel
  yield* awaitProjection(Effect.map(projects.get(project.projectId), (v) => Option.isSome(v) && v.value.name === form.success.name))
  return yield* renderSettings({ ...member, project: { ...project, name: form.success.name } }, null, "The project is renamed.")
})

export const addMember = Effect.fn("addMember")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const { project } = member
  const form = yield* Effect.result(decodeMemberForm(input.body))
  if (form._tag === "Failure") return yield* renderSettings(member, (form.failure as InvalidForm).message, null)
  const added = yield* Effect.result(addProjectMember(project.projectId, form.success.email))
  if (added._tag === "Failure") {
    if ((added.failure as { _tag?: string })._tag === "UserNotFound") {
      return yield* renderSettings(member, "No dashboard user has this email; the operator creates users.", null)
    }
    return yield* Effect.fail(added.failure)
  }
  const user = added.success
  // Read-your-writes, as after a rename: the new member's project list (listByMember) is this read model's.
  const projects = yield* ProjectReadModel
  yield* awaitProjection(
    Effect.map(projects.get(project.projectId), (v) => Option.isSome(v) && v.value.members.some((m) => m.userId === user.userId))
  )
  const members = project.members.some((m) => m.userId === user.userId)
    ? project.members
    : [...project.members, { userId: user.userId, email: user.email }]
  return yield* renderSettings({ ...member, project: { ...project, members } }, null, `${user.email} is a member now.`)
})
