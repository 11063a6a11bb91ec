// One job of the member's project: its page, its live stream, its file, Retry and Cancel, through the /v1 handlers.
import { answerJob, linkedArtifactOf } from "@mds/shared/api/JobResponse"
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { downloadLinkOf } from "@mds/shared/artifacts/DownloadLink"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { isJobVisible } from "@mds/shared/domain/job/JobView"
import { JobId } from "@mds/shared/ids/Ids"
import { Clock, Effect, Option, Schema } from "effect"
import { cancelJob } from "../../jobs/cancelJob.ts"
import { stopJob } from "../../jobs/stopJob.ts"
import { loadJobView } from "../../jobs/loadJobView.ts"
import { retryJob } from "../../jobs/retryJob.ts"
import { streamJobEvents } from "../../jobs/streamJobEvents.ts"
import { isRefusal, orRefusal, type Refusal, refusalReply } from "../ApiRefusal.ts"
import { field } from "../DashboardForms.ts"
import { type DashboardInput, type DashboardReply, type Member, redirectReply, requireMember } from "../DashboardRoute.ts"
import { jobMediaOf } from "../jobs/JobRows.ts"
import { memberPrincipal, v1Request } from "../MemberPrincipal.ts"
import { jobPage } from "../pages/JobPage.ts"

const isJobId = Schema.is(JobId)

/** The job in the path, of the member's project and still visible (the API's rule): else not found, as in the API. */
const visibleJob = Effect.fn("visibleJob")(function* (member: Member, jobId: string) {
  if (!isJobId(jobId)) return yield* new JobNotFound({ jobId })
  const view = yield* loadJobView(member.project.projectId, jobId)
  const now = yield* Clock.currentTimeMillis
  if (Option.isNone(view) || !isJobVisible(view.value, now)) return yield* new JobNotFound({ jobId })
  return view.value
})

const renderJob = Effect.fn("renderJob")(function* (member: Member, jobId: string, refusal: Refusal | null) {
  const view = yield* visibleJob(member, jobId)
  const job = yield* answerJob(yield* ArtifactStore, view)
  const media = yield* jobMediaOf(view)
  return refusalReply(
    jobPage({ viewer: member.signedIn.viewer, project: member.project, job, media, url: view.source.url, refusal }),
    refusal
  )
})

export const showJob = Effect.fn("showJob")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  return yield* renderJob(member, input.params["jobId"] ?? "", null)
})

/** GET /v1/jobs/{jobId}/events as the member's project: the page follows the API's own stream of the job. */
export const jobStream = Effect.fn("jobStream")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const principal = yield* memberPrincipal(member)
  const reply = yield* streamJobEvents(v1Request("GET", { params: { jobId: input.params["jobId"] ?? "" } }), principal)
  if (reply._tag !== "File") return yield* new JobNotFound({ jobId: input.params["jobId"] ?? "" })
  return { _tag: "Stream", body: reply.body, headers: reply.headers } satisfies DashboardReply
})

/**
 * Save: the completed job's download link, signed now (the one place links are made), so a page left open never
 * holds an expired one. A job without a file yet goes to its page.
 */
export const jobFile = Effect.fn("jobFile")(function* (input: DashboardInput) {
  const member = yield* requireMember(input)
  const jobId = input.params["jobId"] ?? ""
  const artifact = linkedArtifactOf(yield* visibleJob(member, jobId))
  if (artifact === null) return redirectReply(`/dashboard/projects/${member.project.projectId}/download/jobs/${jobId}`)
  return redirectReply(yield* downloadLinkOf(yield* ArtifactStore, artifact))
})

/** Retry and Cancel: the /v1 handler of that name; then back where the button was, or the job's page with the refusal. */
const act = (name: string, handle: typeof cancelJob | typeof retryJob | typeof stopJob, method: "DELETE" | "POST") =>
  Effect.fn(name)(function* (input: DashboardInput) {
    const member = yield* requireMember(input)
    const jobId = input.params["jobId"] ?? ""
    const done = yield* orRefusal(
      Effect.flatMap(memberPrincipal(member), (principal) => handle(v1Request(method, { params: { jobId } }), principal))
    )
    if (isRefusal(done)) return yield* renderJob(member, jobId, done.refused)
    const base = `/dashboard/projects/${member.project.projectId}`
    return redirectReply(field(input.body, "from") === "jobs" ? `${base}/jobs#${jobId}` : `${base}/download/jobs/${jobId}`)
  })

export const cancel = act("cancelFromDashboard", cancelJob, "DELETE")
export const retry = act("retryFromDashboard", retryJob, "POST")
export const stop = act("stopFromDashboard", stopJob, "POST")
