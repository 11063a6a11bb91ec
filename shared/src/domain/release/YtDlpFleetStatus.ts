// Folds the extractors' release reports into one row per extractor: the version it runs and its last verdict.
import type { YtDlpWorkerEvent } from "./YtDlpReleaseEvent.ts"

export interface YtDlpWorkerStatus {
  readonly workerId: string
  readonly version: string
  readonly lastChange: "running" | "activated" | "rejected"
  /** The rejected choice's reason, when the last report was a rejection. */
  readonly reason: string | null
  readonly at: number
}

export const evolveFleetStatus = (
  fleet: ReadonlyMap<string, YtDlpWorkerStatus>,
  event: YtDlpWorkerEvent
): ReadonlyMap<string, YtDlpWorkerStatus> => {
  const next = new Map(fleet)
  switch (event._tag) {
    case "YtDlpReleaseRunning":
      next.set(event.workerId, { workerId: event.workerId, version: event.version, lastChange: "running", reason: null, at: event.at })
      break
    case "YtDlpReleaseActivated":
      next.set(event.workerId, { workerId: event.workerId, version: event.version, lastChange: "activated", reason: null, at: event.at })
      break
    case "YtDlpReleaseRejected":
      next.set(event.workerId, { workerId: event.workerId, version: event.kept, lastChange: "rejected", reason: event.reason, at: event.at })
      break
    default: {
      const never: never = event
      return never
    }
  }
  return next
}

export const fleetStatusOf = (events: ReadonlyArray<YtDlpWorkerEvent>): ReadonlyArray<YtDlpWorkerStatus> =>
  [...events.reduce(evolveFleetStatus, new Map<string, YtDlpWorkerStatus>()).values()]
    .sort((a, b) => a.workerId.localeCompare(b.workerId))
