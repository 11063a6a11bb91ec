// The helpers the client and the gateway share over an endpoint's description.
import { describe, expect, it } from "vitest"
import { answerStatuses, endpointPath } from "./Endpoint.ts"
import { V1 } from "./V1Endpoints.ts"

describe("endpointPath", () => {
  it("fills each :param with its percent-encoded value", () => {
    expect(endpointPath(V1.getJob, { jobId: "job_a/b c" })).toBe("/v1/jobs/job_a%2Fb%20c")
    expect(endpointPath(V1.getHealth)).toBe("/v1/health")
  })

  it("refuses to build a path with a parameter missing", () => {
    expect(() => endpointPath(V1.streamJobEvents, {})).toThrow(/:jobId/)
  })
})

describe("answerStatuses", () => {
  it("is the success status plus the documented alternatives", () => {
    expect(answerStatuses(V1.getHealth)).toEqual([200, 503])
    expect(answerStatuses(V1.downloadMedia)).toEqual([202])
  })
})
