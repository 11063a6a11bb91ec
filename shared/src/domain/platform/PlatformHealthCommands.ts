// The platform-health aggregate's command handler, bound once: every resolve and download outcome of a platform.
import { commandHandler } from "../../eventstore/CommandHandler.ts"
import { platformHealthSubject } from "../../eventstore/Subjects.ts"
import { PlatformHealthDecider, type RecordOutcome } from "./PlatformHealthDecider.ts"
import { PlatformHealthEvent } from "./PlatformHealthEvent.ts"

/** Outcomes repeat (many identical successes): each recorded outcome gets its own id. */
const handlePlatformHealth = commandHandler({
  decider: PlatformHealthDecider,
  codec: PlatformHealthEvent,
  // Each event carries the whole state.
  hydrate: "last",
  msgId: (event, index, invocation) => `${event._tag}:${invocation()}:${index}`
})

export const recordPlatformOutcome = (command: RecordOutcome) => handlePlatformHealth(platformHealthSubject(command.platform), command)
