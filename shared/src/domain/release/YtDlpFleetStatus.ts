// Folds the extractors' release reports into one row per extractor still reporting: its version and last verdict.
import type { YtDlpWorkerEvent } from "./YtDlpReleaseEvent.ts"

/** Every extractor repeats YtDlpReleaseRunning this often, so one that stopped reporting can be left out. */
export const WORKER_REPORT_INTERVAL_MS = 10 * 60_000
/** An extractor silent for longer (three missed reports) is gone: stopped, or restarted under another id. */
export const WORKER_SILENT_AFTER_MS = 3 * WORKER_REPORT_INTERVAL_MS

export interface YtDlpWorkerStatus {
  readonly workerId: string
  readonly version: string
  readonly lastChange: "running" | "activated" | "rejected"
  /** The rejected choice's reason, when the last change was a rejection. */
  readonly reason: string | null
  /** The extractor's latest report (a change or a periodic "still running"). */
  readonly at: number
}

export const evolveFleetStatus = (
  fleet: ReadonlyMap<string, YtDlpWorkerStatus>,
  event: YtDlpWorkerEvent
): ReadonlyMap<string, YtDlpWorkerStatus> => {
  const next = new Map(fleet)
  const known = fleet.get(event.workerId)
  switch (event._tag) {
    case "YtDlpReleaseRunning":
      // A periodic report of the same release keeps the last change (and a rejection's reason) in view.
      next.set(
        event.workerId,
        known !== undefined && known.version === event.version
          ? { ...known, at: event.at }
          : { workerId: event.workerId, version: event.version, lastChange: "running", reason: null, at: event.at }
      )
      break
    case "YtDlpReleaseActivated":
      next.set(event.workerId, { workerId: event.workerId, version: event.version, lastChange: "activated", reason: null, at: event.at })
      break
    case "YtDlpReleaseRejected":
      next.set(event.workerId, {
        workerId: event.workerId,
        version: event.kept,
        lastChange: "rejected",
        reason: event.reason,
        at: event.at
      })
      break
    default: {
      const never: never = event
      return never
    }
  }
  return next
}

/** The extractors that reported within WORKER_SILENT_AFTER_MS of `now`, by id. */
export const fleetStatusOf = (events: ReadonlyArray<YtDlpWorkerEvent>, now: number): ReadonlyArray<YtDlpWorkerStatus> =>
  [...events.reduce(evolveFleetStatus, new Map<string, YtDlpWorkerStatus>()).values()]
    .filter((worker) => now - worker.at <= WORKER_SILENT_AFTER_MS)
    .sort((a, b) => a.workerId.localeCompare(b.workerId))
