// The Idempotency-Key aggregate's command handler, bound once: claim, bind and release one key of one project.
import { commandHandler, forSubject } from "../../eventstore/CommandHandler.ts"
import { idempotencySubject } from "../../nats/Subjects.ts"
import { IdempotencyDecider } from "../../domain/idempotency/IdempotencyDecider.ts"
import { IdempotencyEvent } from "../../domain/idempotency/IdempotencyEvent.ts"

/** A key is claimed, bound and released again and again with the same events: each command gets its own id. */
const handleIdempotency = commandHandler({
  decider: IdempotencyDecider,
  codec: IdempotencyEvent,
  msgId: (event, index, invocation) => `${event._tag}:${invocation()}:${index}`
})

/** `keyHash` is a digest of the client's key (keys may hold characters that subjects cannot). */
export const idempotencyCommands = forSubject(handleIdempotency, idempotencySubject)
