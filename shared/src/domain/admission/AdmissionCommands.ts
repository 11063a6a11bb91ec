// The admission aggregate's command handler, bound once: claiming and releasing a project's job slots.
import { Clock, Effect } from "effect"
import { type CommandCallOptions, commandHandler } from "../../eventstore/CommandHandler.ts"
import { admissionSubject } from "../../eventstore/Subjects.ts"
import { AdmissionDecider, type AdmissionState } from "./AdmissionDecider.ts"
import { AdmissionEvent, type SlotReleaseReason } from "./AdmissionEvent.ts"
import type { QuotaLimits } from "./Quota.ts"

/**
 * A job claims its slot once per try and releases it once per try, whoever releases it (the worker, the gateway or the
 * sweeper); the decider turns a claim of a held slot or a release of a free one into nothing. A retried job claims
 * again within the duplicate window, so the id carries the command's time: the same command repeated appends once.
 */
const handleAdmission = commandHandler({
  decider: AdmissionDecider,
  codec: AdmissionEvent,
  // Each event carries every held slot: the last one is the state.
  hydrate: "last",
  msgId: (event) => `${event._tag}:${event.jobId}:${event.at}`
})

export const claimSlot = (
  command: {
    readonly projectId: string
    readonly jobId: string
    readonly limit: number
    readonly quota?: QuotaLimits
    readonly now: number
    readonly expiresAt: number
  },
  options?: CommandCallOptions<AdmissionState>
) => handleAdmission(admissionSubject(command.projectId), { _tag: "ClaimSlot", ...command }, options)

/**
 * Frees the job's slot (a no-op when it holds none). A completed job's releaser passes the size of its file
 * (`slotReleaseBytes`): the month's bytes are counted on the same subject as the slots, so the quota and the slots
 * are judged together.
 */
export const releaseSlot = Effect.fn("releaseSlot")(function* (
  projectId: string,
  jobId: string,
  reason: SlotReleaseReason,
  bytes: number = 0
) {
  const now = yield* Clock.currentTimeMillis
  return yield* handleAdmission(admissionSubject(projectId), {
    _tag: "ReleaseSlot",
    projectId,
    jobId,
    reason,
    now,
    ...(bytes > 0 ? { bytes } : {})
  })
})
