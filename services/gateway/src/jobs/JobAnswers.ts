// The /v1 answer body for a job view, encoded once per view: views are immutable (a change makes a new one) and a link
// is valid until the artifact's end, so a job polled again is neither signed (an HMAC, or an S3 presign), formatted
// nor serialized again.
import type { ApiJob } from "@mds/shared/api/JobResponse"
import type { JobView } from "@mds/shared/domain/job/JobView"

const answers = new WeakMap<JobView, string>()

/** The body (`{"data": job}`) already encoded for this view, if any. */
export const answeredBefore = (view: JobView): string | undefined => answers.get(view)

export const rememberAnswer = (view: JobView, answer: ApiJob): string => {
  const body = JSON.stringify({ data: answer })
  answers.set(view, body)
  return body
}
