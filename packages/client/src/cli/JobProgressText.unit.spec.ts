import type { Job } from "@mds/shared/api/Responses"
import { describe, expect, it } from "vitest"
import { jobProgressOf } from "./JobProgressText.ts"

const job = (fields: Partial<Job>): Job =>
  ({
    id: "job_x",
    status: "processing",
    progress: 40,
    platform: "generic",
    requested_format: "video_best",
    created_at: "",
    ...fields
  }) as Job
const recording = { started_at: "", seconds: 65, bytes: 3 * 1024 * 1024, max_duration: 600, stop_requested: false, ended: null }

describe("jobProgressOf", () => {
  it("shows a download's percent", () => expect(jobProgressOf(job({}))).toEqual({ phase: "processing", percent: 40, detail: "" }))
  it("shows a recording's duration and size, not a percent", () =>
    expect(jobProgressOf(job({ progress: 0, recording }))).toEqual({ phase: "recording", percent: null, detail: "1:05 recorded, 3.0 MiB" }))
  it("says when a recording is stopping", () =>
    expect(jobProgressOf(job({ recording: { ...recording, stop_requested: true } })).detail).toBe("1:05 recorded, 3.0 MiB (stopping)"))
  it("an ended recording shows the job's status again", () =>
    expect(jobProgressOf(job({ status: "completed", progress: 100, recording: { ...recording, ended: "stopped" } })).phase).toBe(
      "completed"
    ))
  it("a job waiting for its stream says when it starts, with no percent", () =>
    expect(jobProgressOf(job({ status: "scheduled", progress: 0, starts_at: "2026-12-01T18:00:00.000Z" }))).toEqual({
      phase: "scheduled",
      percent: null,
      detail: "the stream starts at 2026-12-01T18:00:00.000Z"
    }))
})
