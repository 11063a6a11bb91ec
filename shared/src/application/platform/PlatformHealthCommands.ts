// The platform-health aggregate's command handler, bound once: every resolve and download outcome of a platform; and
// its read door.
import { commandHandler, replayAggregate } from "../../eventstore/CommandHandler.ts"
import { platformHealthSubject } from "../../nats/Subjects.ts"
import { PlatformHealthDecider, type RecordOutcome } from "../../domain/platform/PlatformHealthDecider.ts"
import { PlatformHealthEvent } from "../../domain/platform/PlatformHealthEvent.ts"

/** Outcomes repeat (many identical successes): each recorded outcome gets its own id. */
const handlePlatformHealth = commandHandler({
  decider: PlatformHealthDecider,
  codec: PlatformHealthEvent,
  // Each event carries the whole state.
  hydrate: "last",
  msgId: (event, index, invocation) => `${event._tag}:${invocation()}:${index}`
})

export const recordPlatformOutcome = (command: RecordOutcome) => handlePlatformHealth(platformHealthSubject(command.platform), command)

/** The platform's health now: each event carries the whole state, so only the last is read. */
export const currentPlatformHealth = (platform: string) =>
  replayAggregate(PlatformHealthDecider, PlatformHealthEvent, platformHealthSubject(platform), { last: true })
