// The key-usage facts' door: a key's last use (KeyUsed), one subject per key, one message per key and instant.
import { factRecorder, factsOf } from "../../eventstore/FactRecorder.ts"
import { keyUsageSubject } from "../../nats/Subjects.ts"
import { KeyUsed } from "../../domain/account/AccountEvent.ts"

/** `recordKeyUse(keyId)(used)`: the same use flushed twice (a retried flush) is one message. */
export const recordKeyUse = factsOf(factRecorder({ codec: KeyUsed, msgId: (used) => `KeyUsed:${used.keyId}:${used.at}` }), keyUsageSubject)
