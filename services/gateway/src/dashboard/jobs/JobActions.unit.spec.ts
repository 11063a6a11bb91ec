// Given a job's state, then the dashboard offers what can work: Save when done, Retry for a retryable failure, Cancel while running.
import { describe, expect, it } from "vitest"
import { jobActionsOf } from "./JobActions.ts"

describe("jobActionsOf", () => {
  it.each([
    ["completed", false, ["save"]],
    ["failed", true, ["retry"]],
    ["failed", false, []],
    ["queued", false, ["cancel"]],
    ["processing", false, ["cancel"]],
    ["expired", false, []]
  ] as const)("%s (retryable %s) -> %j", (status, retryable, actions) => expect(jobActionsOf({ status, retryable })).toEqual(actions))

  it("a recording in progress can also be stopped", () =>
    expect(jobActionsOf({ status: "processing", retryable: false, recording: true })).toEqual(["stop", "cancel"]))
})
