// The /v1 answer for a job view, built once per view: views are immutable (a change makes a new one) and a link is
// valid until the artifact's end, so a job polled again is neither signed (an HMAC, or an S3 presign) nor formatted again.
import type { JobView } from "@mds/shared/domain/job/JobView"
import type { ApiJob } from "./JobResponse.ts"

const answers = new WeakMap<JobView, ApiJob>()

/** The answer already built for this view, if any. */
export const answeredBefore = (view: JobView): ApiJob | undefined => answers.get(view)

export const rememberAnswer = (view: JobView, answer: ApiJob): ApiJob => {
  answers.set(view, answer)
  return answer
}
