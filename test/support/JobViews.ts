// A job read-model document for tests: a queued job with typical values, any field overridden.
import type { JobView } from "@mds/shared/domain/job/JobView"
import { newId } from "@mds/shared/ids/Ids"
import { parseFormatId } from "@mds/shared/domain/media/FormatId"

export const jobView = (projectId: string, overrides: Partial<JobView> = {}): JobView => ({
  id: newId("job"),
  projectId,
  status: "queued",
  progress: 0,
  platform: "vimeo",
  format: parseFormatId("video_best"),
  source: { url: "https://vimeo.com/1", mediaId: null },
  attempt: 0,
  createdAt: 1_000,
  expiresAt: 3_601_000,
  startedAt: null,
  completedAt: null,
  artifact: null,
  error: null,
  lastSeq: 1,
  ...overrides
})
