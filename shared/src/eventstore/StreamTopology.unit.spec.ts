// Stream settings that the quotas depend on.
import { describe, expect, it } from "vitest"
import { streamConfigs } from "./StreamTopology.ts"
import { ADMISSION_STREAM } from "../nats/Subjects.ts"

const lifetimes = { mediaMs: 3_600_000, jobMs: 3_600_000, downloadUrlMs: 3_600_000, maxConcurrentJobs: 2 }

describe("streamConfigs", () => {
  it("keeps a project's last admission event past a calendar month, so an idle project's month's bytes still count", () => {
    const admission = streamConfigs(lifetimes).find((config) => config.name === ADMISSION_STREAM.name)
    expect(admission?.max_age).toBe(32 * 86_400_000 * 1_000_000)
    expect(admission?.max_msgs_per_subject).toBe(16)
  })
})
