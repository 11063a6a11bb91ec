// In-process directory of API keys, kept current by a follower of every key subject: no store round trip per request,
// and a stored revocation is refused by every gateway within KEYS_TRUST_MS (milliseconds when delivery flows).
import { KeyEvent } from "@mds/shared/domain/account/AccountEvent"
import { KeyDecider, type KeyState } from "@mds/shared/domain/account/KeyDecider"
import { currentKey } from "@mds/shared/application/account/AccountCommands"
import { EventStore, type EventStoreError } from "@mds/shared/eventstore/EventStore"
import { ACCOUNTS_STREAM, keySubject } from "@mds/shared/nats/Subjects"
import { followEvents } from "@mds/shared/nats/followEvents"
import { Context, Effect, Layer, Option, Schema } from "effect"

interface Entry {
  readonly state: KeyState
  /** Stream sequence of the last event folded in: the consumer and on-demand reads may deliver the same events. */
  readonly lastSeq: number
}

/** Name of the follower in /v1/health. */
export const KEYS_FOLLOWER = "keys"

/** The follower is asked this often whether it is caught up (one consumer-info request per gateway). */
const KEYS_PROBE_MS = 250

/**
 * The longest a revocation can be stored and the key still accepted from memory: memory answers only while a probe
 * sent at most this long ago showed the directory caught up; otherwise lookups read the key's stream.
 */
export const KEYS_TRUST_MS = 2 * KEYS_PROBE_MS

const decodeKeyEvent = Schema.decodeUnknownOption(Schema.fromJsonString(KeyEvent))

export class KeyDirectory extends Context.Service<
  KeyDirectory,
  {
    /** The key's state, or none when no key with this id was ever created. */
    lookup(keyId: string): Effect.Effect<Option.Option<KeyState>, EventStoreError>
    /** The key's state when the followed directory holds it (exactly what lookup answers then), else undefined. */
    peek(keyId: string): KeyState | undefined
  }
>()("mds/gateway/auth/KeyDirectory") {
  static readonly layer = Layer.effect(
    KeyDirectory,
    Effect.gen(function* () {
      const store = yield* EventStore
      const entries = new Map<string, Entry>()
      const fold = (keyId: string, seq: number, event: KeyEvent) => {
        const current = entries.get(keyId) ?? { state: KeyDecider.initialState(), lastSeq: 0 }
        if (seq <= current.lastSeq) return
        entries.set(keyId, { state: KeyDecider.evolve(current.state, event), lastSeq: seq })
      }

      // Replays every key event from the start, then follows new ones. While it cannot show it is caught up (starting,
      // behind by even one message, or its server gone) the directory may miss a revocation: lookups read the stream.
      const follower = yield* followEvents({
        name: KEYS_FOLLOWER,
        stream: ACCOUNTS_STREAM.name,
        filterSubject: keySubject.all,
        from: "all",
        probeMs: KEYS_PROBE_MS,
        trustMs: KEYS_TRUST_MS,
        decode: decodeKeyEvent,
        onEvent: (event, { seq }) => fold(event.keyId, seq, event)
      })

      // Untraced: runs from memory on every request; the request's span covers it (a traced call costs ~6 µs).
      const peek = (keyId: string): KeyState | undefined => {
        const known = entries.get(keyId)
        return follower.state() === "following" && known !== undefined && known.state.key !== null ? known.state : undefined
      }

      const lookup = Effect.fnUntraced(function* (keyId: string) {
        const known = peek(keyId)
        if (known !== undefined) return Option.some(known)
        // Read-your-writes: a key created a moment ago may not have reached the consumer yet.
        const read = yield* Effect.provideService(currentKey(keyId), EventStore, store)
        if (read.lastSeq > (entries.get(keyId)?.lastSeq ?? 0)) entries.set(keyId, read)
        const state = entries.get(keyId)?.state
        return state !== undefined && state.key !== null ? Option.some(state) : Option.none()
      })

      return KeyDirectory.of({ lookup, peek })
    })
  )
}
