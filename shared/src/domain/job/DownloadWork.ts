// Hands a queued job to the extractor fleet: one DownloadMedia on the work subject, deduplicated by the job id.
import { Effect } from "effect"
import { EventStore } from "../../eventstore/EventStore.ts"
import { DOWNLOAD_WORK_SUBJECT } from "../../eventstore/Subjects.ts"
import { DownloadMedia } from "./DownloadMedia.ts"

/** The same job handed off twice (a retried request, a redelivered batch step) is one work message. */
export const sendDownloadWork = Effect.fnUntraced(function* (work: Omit<DownloadMedia, "_tag" | "v">) {
  const store = yield* EventStore
  return yield* store.append(DownloadMedia, DOWNLOAD_WORK_SUBJECT, { _tag: "DownloadMedia", v: 1, ...work }, { msgId: work.jobId })
})
