// GET /v1/jobs/:jobId: the job of the key's own project, while it is visible, with a download link once completed;
// a key polling one job faster than allowed gets 429 polling_too_fast. Plain steps over in-memory state (nearly every
// poll is answered from memory); a view not in memory, or a link not signed yet, is the I/O.
import { ArtifactStore } from "@mds/shared/artifacts/ArtifactStore"
import { downloadLinkOf } from "@mds/shared/artifacts/DownloadLink"
import { JobNotFound } from "@mds/shared/domain/DomainErrors"
import { isJobVisible, type JobView } from "@mds/shared/domain/job/JobView"
import { JobId } from "@mds/shared/ids/Ids"
import { Context, Exit, Option, Schema } from "effect"
import type { Principal } from "../auth/ApiKeyAuth.ts"
import type { ApiFailure } from "../http/ErrorMapping.ts"
import { type Answer, andThen, encodedJson, type Io, type RouteInput, type Step, stepHandler } from "../http/Route.ts"
import { PollingGuard } from "../limits/PollingGuard.ts"
import { linkedArtifactOf, toJobResponse } from "@mds/shared/api/JobResponse"
import { answeredBefore, rememberAnswer } from "./JobAnswers.ts"
import { JobViewCache } from "./JobViewCache.ts"

const isJobId = Schema.is(JobId)

export const readJob = stepHandler((services: Context.Context<PollingGuard | JobViewCache | ArtifactStore>) => {
  const polls = Context.get(services, PollingGuard)
  const views = Context.get(services, JobViewCache)
  const artifacts = Context.get(services, ArtifactStore)

  /** The /v1 answer's body, encoded once per view: a completed job's link is signed here on its first read. */
  const answerOf = (view: JobView, io: Io<ArtifactStore>): Step<Exit.Exit<string, ApiFailure>> => {
    const answered = answeredBefore(view)
    if (answered !== undefined) return Exit.succeed(answered)
    const artifact = linkedArtifactOf(view)
    if (artifact === null) return Exit.succeed(rememberAnswer(view, toJobResponse(view, null)))
    return io(downloadLinkOf(artifacts, artifact)).then((link) => Exit.map(link, (url) => rememberAnswer(view, toJobResponse(view, url))))
  }

  const answerFound = (
    principal: Principal,
    jobId: string,
    view: JobView | undefined,
    io: Io<ArtifactStore>,
    now: number
  ): Step<Answer> => {
    // Jobs live under their project's subjects, so another project's job is simply not found here.
    if (view === undefined || !isJobVisible(view, now)) return Exit.fail(new JobNotFound({ jobId }))
    return andThen(answerOf(view, io), (answer) => {
      if (Exit.isFailure(answer)) return Exit.failCause(answer.cause)
      polls.record(principal.keyId, jobId, now)
      return Exit.succeed(encodedJson(200, answer.value))
    })
  }

  return (input: RouteInput, principal: Principal, io: Io<PollingGuard | JobViewCache | ArtifactStore>, now: number) => {
    const jobId = input.params["jobId"] ?? ""
    // Checked before the job is read, so a client looping too fast costs no lookup.
    const tooFast = polls.check(principal.keyId, jobId, now)
    if (tooFast !== undefined) return Exit.fail(tooFast)
    // A malformed id cannot name a job; it never reaches a subject name.
    if (!isJobId(jobId)) return Exit.fail(new JobNotFound({ jobId }))
    const cached = views.peek(principal.projectId, jobId)
    if (cached !== undefined) return answerFound(principal, jobId, cached, io, now)
    return io(views.get(principal.projectId, jobId)).then((loaded) =>
      Exit.isFailure(loaded) ? Exit.failCause(loaded.cause) : answerFound(principal, jobId, Option.getOrUndefined(loaded.value), io, now)
    )
  }
})
