// Given the query and headers of GET /v1/jobs/events, then the filters and resume point, or why they are refused; and
// which jobs pass the filters.
import { describe, expect, it } from "vitest"
import { jobView } from "../../../../test/support/JobViews.ts"
import { jobChangeRequestOf, matchesApiJobFilter } from "./JobChangeRequest.ts"

const asked = (query: Record<string, unknown>, headers: Record<string, string> = {}) => {
  const request = jobChangeRequestOf(query, headers)
  if ("message" in request) throw new Error(request.message)
  return request
}

describe("jobChangeRequestOf", () => {
  it("given nothing, then every job from now on", () => {
    expect(jobChangeRequestOf({}, {})).toEqual({ filter: { status: null, platform: null, errorCode: null }, lastEventId: null })
  })

  it("given every filter and a Last-Event-ID, then all of them", () => {
    expect(jobChangeRequestOf({ status: "failed", platform: "archive_org", error_code: "canceled" }, { "last-event-id": "42" })).toEqual({
      filter: { status: "failed", platform: "archive_org", errorCode: "canceled" },
      lastEventId: 42
    })
  })

  it("given a value the API never shows, then the refusal names its parameter", () => {
    expect(jobChangeRequestOf({ status: "expired" }, {})).toEqual({ message: expect.stringMatching(/^status: /) })
    expect(jobChangeRequestOf({ error_code: ["canceled", "canceled"] }, {})).toEqual({ message: expect.stringMatching(/^error_code: /) })
    expect(jobChangeRequestOf({}, { "last-event-id": "1e3" })).toEqual({ message: expect.stringMatching(/^Last-Event-ID: /) })
  })
})

describe("matchesApiJobFilter", () => {
  const canceled = jobView("prj_a", { status: "failed", error: { code: "canceled", message: "x", retryable: false } })
  const running = jobView("prj_a", { status: "processing", platform: "generic" })

  it("given a canceled job, then it is failed with the code canceled, as GET /jobs shows it", () => {
    expect(matchesApiJobFilter(asked({ status: "failed" }).filter, canceled)).toBe(true)
    expect(matchesApiJobFilter(asked({ error_code: "canceled" }).filter, canceled)).toBe(true)
    expect(matchesApiJobFilter(asked({ error_code: "download_failed" }).filter, canceled)).toBe(false)
  })

  it("given several filters, then a job passes only all of them", () => {
    expect(matchesApiJobFilter(asked({ status: "processing", platform: "generic" }).filter, running)).toBe(true)
    expect(matchesApiJobFilter(asked({ status: "processing", platform: "vimeo" }).filter, running)).toBe(false)
    expect(matchesApiJobFilter(asked({ status: "processing", error_code: "canceled" }).filter, running)).toBe(false)
  })
})
