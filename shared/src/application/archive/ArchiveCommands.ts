// Extension: the download archive's command handler, bound once; `recordArchiveEntry` says whether the claim owns the entry.
import { createHash } from "node:crypto"
import { Effect } from "effect"
import { commandHandler, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { archiveSubject } from "../../nats/Subjects.ts"
import { ArchiveDecider, ownsEntry, type RecordArchiveEntry } from "../../domain/archive/ArchiveDecider.ts"
import { ArchiveEvent } from "../../domain/archive/ArchiveEvent.ts"

/**
 * One id per claim: two claims of one entry append with different ids, so the second is not taken for a duplicate of
 * the first; it conflicts on the empty subject it expected, reads the first's record, and owns nothing.
 */
const handleArchive = commandHandler({
  decider: ArchiveDecider,
  codec: ArchiveEvent,
  hydrate: "last",
  msgId: (event) => `${event._tag}:${event.projectId}:${event.claimId}:${event.archiveKey}`
})

const keyHash = (archiveKey: string) => createHash("sha256").update(archiveKey).digest("base64url")

/** Records the entry in the project's archive for this claim; true when the claim owns it (and so queues it). */
export const recordArchiveEntry = (command: Omit<RecordArchiveEntry, "_tag">) =>
  handleArchive(archiveSubject(command.projectId, keyHash(command.archiveKey)), { _tag: "RecordArchiveEntry", ...command }).pipe(
    Effect.map((handled) => ownsEntry(handled.state, command.claimId))
  )

/**
 * The claim that recorded the entry under this key, or null: for a key no check records any more (formerArchiveKeyOf),
 * a read is the whole answer, since nothing can claim it after the read.
 */
export const archiveClaimOf = Effect.fn("archiveClaimOf")(function* (projectId: string, archiveKey: string) {
  const { state } = yield* currentArchiveEntry(projectId, archiveKey)
  return state?.claimId ?? null
})

/** The archive entry's state (the claim that recorded it, or null) and its subject's last sequence. */
export const currentArchiveEntry = (projectId: string, archiveKey: string) =>
  replayAggregate(ArchiveDecider, ArchiveEvent, archiveSubject(projectId, keyHash(archiveKey)), { last: true })
