// The one retry table: failures of the moment are retryable, failures of the media, the request or a client's decision are not.
import { describe, expect, it } from "vitest"
import { CANCELED_ERROR, JobErrorCode } from "./JobEvent.ts"
import { isRetryableFailure, RETRYABLE_FAILURES } from "./JobFailures.ts"

describe("isRetryableFailure", () => {
  it.each([["download_failed"], ["download_timeout"], ["internal_error"], ["attempts_exhausted"], ["job_expired"]] as const)(
    "%s depends on the moment: retryable",
    (code) => expect(isRetryableFailure(code)).toBe(true)
  )

  it.each([
    ["media_unavailable"],
    ["unsupported_platform"],
    ["format_unavailable"],
    ["url_not_allowed"],
    ["media_too_long"],
    ["file_too_large"],
    ["section_out_of_range"],
    ["subtitles_unavailable"],
    ["canceled"]
  ] as const)("%s would fail the same way or undo a decision: not retryable", (code) => expect(isRetryableFailure(code)).toBe(false))

  it("covers every job error code, and the cancel's error says what the table says", () => {
    expect(Object.keys(RETRYABLE_FAILURES).sort()).toEqual([...JobErrorCode.literals].sort())
    expect(CANCELED_ERROR.retryable).toBe(isRetryableFailure("canceled"))
  })
})
